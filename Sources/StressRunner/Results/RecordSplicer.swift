import StressCore

/// Writes records that differ only in which trial they are (the `skipped`
/// records of the trials an interrupted run did not start: thousands of one
/// cell, alike but for id, repetition and seed) at the cost of copying
/// bytes, not of an encoder call each.
///
/// For each kind of record it meets, it renders the record once through the
/// ordinary renderer with the identity fields (``RecordIdentity``) set to a
/// marker, twice, with two different markers: the bytes between the markers
/// must be the same both times, or the kind is not spliced. A record of a
/// known kind is then that kind's bytes with its own identity put where the
/// markers were. A record whose identity the format would have to escape
/// (a quote in an id), or of a kind that does not repeat, goes through the
/// renderer as before: the output is byte for byte the renderer's either way
/// (StoppedRunOutputTests compares them).
struct RecordSplicer {
    /// Whether the format writes a text field as it is (its UTF-8 bytes);
    /// one it would escape goes through the renderer.
    typealias Plain = (String) -> Bool

    /// The ordinary renderer: one record's bytes, nil when it cannot render
    /// it (the caller's own fallback reports why).
    private let render: (TrialResult) -> [UInt8]?
    private let plain: Plain
    /// The kinds met so far, the most recent first.
    private var templates: [Template] = []
    /// Kinds that could not be spliced (a field the format transforms), so
    /// that they are not tried again.
    private var refused: [TrialResult] = []
    /// Templates made and records spliced: when kinds do not repeat,
    /// making templates (two renders each) would cost more than it saves.
    private var made = 0, spliced = 0

    /// At most this many kinds are kept: a plan's cells in the order its
    /// trials run, or a portfolio's four fuzzing profiles.
    private static let kept = 8

    init(render: @escaping (TrialResult) -> [UInt8]?, plain: @escaping Plain) {
        self.render = render
        self.plain = plain
    }

    /// `record`'s bytes, as `render` would give them.
    mutating func bytes(of record: TrialResult) -> [UInt8]? {
        var appended = false
        let bytes = ChunkedOutput.collecting { appended = append(record, to: $0) }
        return appended ? bytes : nil
    }

    /// Appends `record`'s bytes, as `render` would give them, to `out`
    /// (spliced in place: no buffer of its own); false when `render` could
    /// not render it. Only `skipped` records are spliced: they are the ones
    /// that come in thousands alike; a finished trial's figures are its own.
    mutating func append(_ record: TrialResult, to out: ChunkedOutput) -> Bool {
        guard record.outcome == .skipped else { return appendRendered(record, to: out) }
        let identity = RecordIdentity(of: record)
        guard identity.isPlain(plain) else { return appendRendered(record, to: out) }
        // Each kind is tried in place (it takes the record's identity and is
        // compared whole): a record is large, and a blanked copy of each would
        // cost more than splicing it.
        for i in templates.indices where templates[i].matches(record, identity) {
            spliced += 1
            if i > 0 { templates.insert(templates.remove(at: i), at: 0) }
            templates[0].splice(identity, into: out)
            return true
        }
        let kind = identity.blanking(record)
        guard made < 16 + spliced, !refused.contains(kind) else { return appendRendered(record, to: out) }
        made += 1
        guard let template = Template(kind: kind, render: render) else {
            refused.append(kind)
            if refused.count > Self.kept { refused.removeLast() }
            return appendRendered(record, to: out)
        }
        templates.insert(template, at: 0)
        if templates.count > Self.kept { templates.removeLast() }
        template.splice(identity, into: out)
        return true
    }

    private func appendRendered(_ record: TrialResult, to out: ChunkedOutput) -> Bool {
        guard let bytes = render(record) else { return false }
        out.append(bytes)
        return true
    }

    /// One kind of record as rendered: the bytes between its identity's slots.
    private struct Template {
        /// A record of this kind, with the identity of the last record compared with it.
        private var sample: TrialResult
        /// `pieces.count == slots.count + 1`.
        let pieces: [[UInt8]]
        let slots: [RecordIdentity.Field]

        /// The template of `kind` (a record whose identity is blank), or nil
        /// when the renderer does not write each identity field as it is.
        init?(kind: TrialResult, render: (TrialResult) -> [UInt8]?) {
            guard let a = Self.split(kind, marked: .markerA, render: render),
                  let b = Self.split(kind, marked: .markerB, render: render),
                  a.slots == b.slots, a.pieces == b.pieces else { return nil }
            sample = kind
            pieces = a.pieces
            slots = a.slots
        }

        /// Whether `record`, whose identity is `identity`, is of this kind:
        /// the sample, given that identity, equals it (both with a rerun
        /// command, or both without).
        mutating func matches(_ record: TrialResult, _ identity: RecordIdentity) -> Bool {
            guard (sample.rerunCommand == nil) == (record.rerunCommand == nil) else { return false }
            identity.apply(to: &sample)
            return sample == record
        }

        /// Appends the record of `identity`: the pieces with its fields between them.
        func splice(_ identity: RecordIdentity, into out: ChunkedOutput) {
            out.append(pieces[0])
            for (slot, piece) in zip(slots, pieces.dropFirst()) {
                identity.append(slot, to: out)
                out.append(piece)
            }
        }

        /// `kind` rendered with `marker` as its identity, cut at every place
        /// a marker's field appears.
        private static func split(_ kind: TrialResult, marked marker: RecordIdentity,
                                  render: (TrialResult) -> [UInt8]?) -> (pieces: [[UInt8]], slots: [RecordIdentity.Field])? {
            guard let bytes = render(marker.applied(to: kind)) else { return nil }
            var found: [(at: Int, length: Int, field: RecordIdentity.Field)] = []
            for field in RecordIdentity.Field.allCases where field != .rerun || kind.rerunCommand != nil {
                let value = ChunkedOutput.collecting { marker.append(field, to: $0) }
                var from = 0
                while let at = find(value, in: bytes, from: from) {
                    found.append((at, value.count, field))
                    from = at + value.count
                }
            }
            found.sort { $0.at < $1.at }
            var pieces: [[UInt8]] = []
            var start = 0
            for f in found {
                guard f.at >= start else { return nil }  // two markers overlap
                pieces.append(Array(bytes[start..<f.at]))
                start = f.at + f.length
            }
            pieces.append(Array(bytes[start...]))
            return (pieces, found.map(\.field))
        }

        private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
            guard let first = needle.first, haystack.count - from >= needle.count else { return nil }
            var i = from
            let last = haystack.count - needle.count
            while i <= last {
                if haystack[i] == first && haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
                i += 1
            }
            return nil
        }
    }
}

/// What tells one record of a cell's trials from another: the trial's id,
/// index, repetition and seed, and the command that reruns it.
struct RecordIdentity {
    enum Field: CaseIterable { case id, index, repetition, seed, rerun }

    var id: String
    var index: Int
    var repetition: Int
    var seed: UInt64
    var rerun: String?

    init(of record: TrialResult) {
        id = record.trial.id
        index = record.trial.index
        repetition = record.trial.repetition
        seed = record.trial.seed
        rerun = record.rerunCommand
    }

    private init(id: String, index: Int, repetition: Int, seed: UInt64, rerun: String) {
        self.id = id
        self.index = index
        self.repetition = repetition
        self.seed = seed
        self.rerun = rerun
    }

    /// Two identities no real record has, each field unlike anything else a
    /// record holds, to find where a renderer writes each field.
    static let markerA = RecordIdentity(id: "~spliced-id-A7Q3~", index: 7_306_219_845_531_907, repetition: 6_194_028_375_562_871,
                                        seed: 15_882_301_947_226_153_339, rerun: "~spliced-rerun-A5K8~")
    static let markerB = RecordIdentity(id: "~spliced-id-B2W9~", index: 5_820_473_196_604_411, repetition: 4_471_950_263_118_093,
                                        seed: 13_106_774_582_093_361_717, rerun: "~spliced-rerun-B8M4~")
    private static let blank = RecordIdentity(id: "", index: 0, repetition: 0, seed: 0, rerun: "")

    /// `record` with this identity (a record without a rerun command keeps none).
    func applied(to record: TrialResult) -> TrialResult {
        var r = record
        apply(to: &r)
        return r
    }

    /// Gives `record` this identity, in place (a record without a rerun command keeps none).
    func apply(to record: inout TrialResult) {
        record.trial.id = id
        record.trial.index = index
        record.trial.repetition = repetition
        record.trial.seed = seed
        if record.rerunCommand != nil { record.rerunCommand = rerun }
    }

    /// `record` without its identity: what records of one kind share.
    func blanking(_ record: TrialResult) -> TrialResult { Self.blank.applied(to: record) }

    /// Whether the format writes each text field as it is.
    func isPlain(_ plain: RecordSplicer.Plain) -> Bool {
        plain(id) && rerun.map(plain) != false
    }

    /// Appends `field` as a format writes it when ``isPlain(_:)``: a text
    /// as it is, a number in decimal (formatted in place: no string is made
    /// for it).
    func append(_ field: Field, to out: ChunkedOutput) {
        switch field {
        case .id: out.append(id)
        case .index: out.append(decimal: index)
        case .repetition: out.append(decimal: repetition)
        case .seed: out.append(decimal: seed)
        case .rerun: out.append(rerun ?? "")
        }
    }
}
