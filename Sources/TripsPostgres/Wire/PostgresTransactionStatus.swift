/// Where the session stands, as ReadyForQuery reports it after every query.
package enum PostgresTransactionStatus: UInt8, Sendable, Hashable {
    /// 'I': outside a transaction block.
    case idle = 0x49
    /// 'T': inside a transaction block.
    case inTransaction = 0x54
    /// 'E': inside a failed transaction block; every statement fails until ROLLBACK.
    case failedTransaction = 0x45
}
