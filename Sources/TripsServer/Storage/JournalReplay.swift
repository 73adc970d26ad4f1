import TripsDomain

/// Rebuilds the list from a snapshot's list and the journal that follows it.
struct JournalReplay {
    /// The list after every whole record.
    var list: TripList
    /// The history with the event of every whole record added.
    var history: ChangeHistory
    /// The idempotency keys with those of every whole record added.
    var ledger: IdempotencyLedger
    /// The bytes the whole records take; anything after is a torn tail.
    var validLength: Int
    var recordCount: Int
    /// Why the tail after `validLength` was dropped, when there was one.
    var tornTail: String?

    /// Replays `bytes` onto `list`. Pass the list with `consume`: in a list still held
    /// elsewhere, every page a change touches is copied.
    ///
    /// A last record that is incomplete, or fails its checksum with no valid record after
    /// it, is a write the crash interrupted: it was never acknowledged, so it is dropped.
    /// Anything else that is wrong is `.corrupt` with the record's offset.
    /// - Complexity: O(n) in the journal's length, plus the cost of applying each change.
    init(
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
        while validLength < bytes.count {
            let offset = validLength
            let reading = bytes.withUnsafeBytes { RecordFrame.read($0, at: offset) }
            let problem: String
            switch reading {
            case .record(let payload, let next):
                try apply(Array(bytes[payload]), file: file, offset: offset, now: now)
                validLength = next
                recordCount += 1
                continue
            case .incomplete:
                problem = "the last record is incomplete"
            case .damaged(let reason):
                problem = reason
            }
            if bytes.withUnsafeBytes({ RecordFrame.containsRecord($0, after: offset + 1) }) {
                throw .corrupt(file: file, offset: offset, reason: problem + ", and valid records follow it")
            }
            tornTail = "\(problem) (\(bytes.count - offset) bytes from offset \(offset))"
            return
        }
    }

    private mutating func apply(_ payload: [UInt8], file: String, offset: Int, now: Int64) throws(StorageError) {
        let record: JournalRecord
        do {
            record = try JournalRecord(payload: payload)
        } catch {
            throw .corrupt(file: file, offset: offset, reason: error.reason)
        }
        do {
            if let event = try list.applyTelling(record.change).event { history.append(event) }
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
