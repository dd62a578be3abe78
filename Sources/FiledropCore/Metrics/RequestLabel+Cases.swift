import FiledropHTTP

/// A fixed set of metric labels that travels through the HTTP engine as a `RequestLabel`:
/// the case's place in `allCases`, counted from 1 so that `.unlabelled` is none of them.
protocol LabelCases: CaseIterable, Equatable where AllCases == [Self] {
    /// `allCases`, made once: the synthesized property builds the array at every call.
    static var labelled: [Self] { get }
}

extension LabelCases {
    public var label: RequestLabel {
        RequestLabel(rawValue: UInt8(truncatingIfNeeded: Self.labelled.firstIndex(of: self)! + 1))
    }

    /// The case `label` stands for; nil for `.unlabelled` (or a label of another set).
    public init?(label: RequestLabel) {
        let index = Int(label.rawValue) - 1
        guard Self.labelled.indices.contains(index) else { return nil }
        self = Self.labelled[index]
    }
}

extension RequestKind: LabelCases {
    static let labelled = allCases
}

extension RefusalReason: LabelCases {
    static let labelled = allCases
}
