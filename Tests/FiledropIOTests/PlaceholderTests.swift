import Testing
@testable import FiledropIO
