import FiledropCore
import FiledropIO
import FiledropSystemd

print("filedrop")
