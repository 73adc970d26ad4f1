extension MD5 {
    /// The password a client sends for PostgreSQL's `md5` method (AuthenticationMD5Password):
    /// `"md5"` then the hex of md5(hex(md5(password + user)) + salt), 35 ASCII bytes. The
    /// inner hash is what such a server stores; the salt is the 4 bytes it sent, so a
    /// captured answer works only against that salt.
    ///
    /// The caller adds the PasswordMessage's terminating zero byte.
    ///
    /// https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP
    package static func postgreSQLPasswordAnswer(user: String, password: String, salt: [UInt8]) -> [UInt8] {
        let stored = hexadecimal(hash(Array(password.utf8) + Array(user.utf8)))
        return Array("md5".utf8) + hexadecimal(hash(stored + salt))
    }

    /// Lowercase hex digits, as PostgreSQL writes md5 digests.
    private static func hexadecimal(_ bytes: [UInt8]) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return text
    }
}
