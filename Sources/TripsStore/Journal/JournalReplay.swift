import TripsDomain

/// Rebuilds the list from a snapshot's list and the journal that follows it.
package struct JournalReplay {
    /// The list after every whole record.
    package var list: TripList
    /// The history with the event of every whole record added.
    package var history: ChangeHistory
    /// The idempotency keys with those of every whole record added.
    package var ledger: IdempotencyLedger
    /// The bytes the whole records take; anything after is a torn tail.
    package var validLength: Int
    package var recordCount: Int
    /// Why the tail after `validLength` was dropped, when there was one.
    package var tornTail: String?

    /// Replays `bytes` onto `list`. Pass the list with `consume`: in a list still held
    /// elsewhere, every page a change touches is copied.
    ///
    /// A last record that is incomplete, or fails its checksum with no valid record after
    /// it, is a write the crash interrupted: it was never acknowledged, so it is dropped.
    /// Anything else that is wrong is `.corrupt` with the record's offset.
    /// - Complexity: O(n) in the journal's length, plus the cost of applying each change.
    package init(
        _ bytes: [UInt8], file: String, onto list: consuming TripList, history: consuming ChangeHistory,
        ledger: consuming IdempotencyLedger = IdempotencyLedger(),
        now: Int64 = 0
    ) throws(StorageError) {
        self.list = list
        self.history = history
        self.ledger = ledger
        validLength = 0
        recordCount = 0
        tornTail = nil
        var records: [(offset: Int, payload: Range<Int>)] = []
        /// A damaged record with whole ones after it: thrown once the records before it are
        /// replayed, so that the first flaw in the file is the one named.
        var damage: StorageError?
        scan: while validLength < bytes.count {
            let offset = validLength
            let problem: String
            switch bytes.withUnsafeBytes({ RecordFrame.read($0, at: offset) }) {
            case .record(let payload, let next):
                records.append((offset, payload))
                validLength = next
                continue
            case .incomplete:
                problem = "the last record is incomplete"
            case .damaged(let reason):
                problem = reason
            }
            if bytes.withUnsafeBytes({ RecordFrame.containsRecord($0, after: offset + 1) }) {
                damage = .corrupt(file: file, offset: offset, reason: problem + ", and valid records follow it")
            } else {
                tornTail = "\(problem) (\(bytes.count - offset) bytes from offset \(offset))"
            }
            break scan
        }
        // Every record changed the revision, so each has an event, and the last `capacity`
        // of them push every older one out of the history: the events of the records before
        // those are not built (with a long journal, that was most of the replay).
        let firstTold = max(0, records.count - self.history.capacity)
        for (index, record) in records.enumerated() {
            try apply(
                Array(bytes[record.payload]), file: file, offset: record.offset, now: now, tellingHistory: index >= firstTold)
            recordCount += 1
        }
        if let damage { throw damage }
    }

    private mutating func apply(
        _ payload: [UInt8], file: String, offset: Int, now: Int64, tellingHistory: Bool
    ) throws(StorageError) {
        let record: JournalRecord
        do {
            record = try JournalRecord(payload: payload)
        } catch {
            throw .corrupt(file: file, offset: offset, reason: error.reason)
        }
        do {
            if !tellingHistory {
                try list.apply(record.change)
            } else if let event = try list.applyTelling(record.change).event {
                history.append(event)
            }
        } catch {
            throw .corrupt(file: file, offset: offset, reason: "replaying the record fails: \(error)")
        }
        if let use = record.idempotency { ledger.finish(use, now: now) }
        guard list.revision == record.revision else {
            throw .corrupt(
                file: file, offset: offset,
                reason: "replay reached revision \(list.revision), but the record says \(record.revision)")
        }
    }
}
