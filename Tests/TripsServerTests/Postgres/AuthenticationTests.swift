import Foundation
import Testing
import TripsTestSupport
@testable import TripsPlatform
@testable import TripsPostgres
@testable import TripsServer

/// The cryptography of PostgreSQL authentication, against published vectors: any wrong bit
/// in a round constant, a rotation or the padding changes these digests.
@Suite struct AuthenticationTests {
    @Suite struct SHA256Tests {
        /// FIPS 180-2 appendix B and RFC 6234 §8.5: one block, empty, two blocks, two blocks
        /// of 896 bits.
        @Test(arguments: [
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
        func publishedVectors(message: String, digest: String) {
            #expect(hex(SHA256.hash(utf8(message))) == digest)
        }

        /// Lengths on each side of where the padding needs a second block (55/56) and of
        /// block ends. From `python3 -c "import hashlib; print(hashlib.sha256(b'a'*55).hexdigest())"`.
        @Test(arguments: [
            (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
            (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb"),
            (120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c"),
        ])
        func paddingBoundaries(count: Int, digest: String) {
            #expect(hex(SHA256.hash([UInt8](repeating: UInt8(ascii: "a"), count: count))) == digest)
        }

        /// FIPS 180-2 appendix B.3: one million "a", at once, in uneven chunks, and from a
        /// sequence without contiguous storage.
        @Test(.tags(.slow)) func oneMillionAs() {
            let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
            let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
            #expect(hex(SHA256.hash(message)) == expected)
            var chunked = SHA256()
            let sizes = [1, 7, 63, 64, 65, 127, 0, 1000, 4093]
            var offset = 0
            var chunk = 0
            while offset < message.count {
                let end = min(offset + sizes[chunk % sizes.count], message.count)
                chunked.update(message[offset..<end])
                offset = end
                chunk += 1
            }
            #expect(hex(chunked.finalize()) == expected)
            #expect(hex(SHA256.hash(repeatElement(UInt8(ascii: "a"), count: 1_000_000))) == expected)
        }

        @Test func everySplitPointGivesTheSameDigest() {
            let message = pseudorandomBytes(count: 300)
            let whole = SHA256.hash(message)
            for split in 0...message.count {
                var hash = SHA256()
                hash.update(message[..<split])
                hash.update(message[split...])
                #expect(hash.finalize() == whole, "split at \(split)")
            }
        }

        @Test func finalizingLeavesTheHashUsable() {
            var hash = SHA256()
            hash.update(utf8("ab"))
            #expect(hash.finalize() == SHA256.hash(utf8("ab")))
            hash.update(utf8("c"))
            #expect(hex(hash.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        }
    }

    @Suite struct HMACTests {
        /// RFC 4231 §4.2–4.8, HMAC-SHA-256. Case 5 is truncated to 128 bits, as published.
        @Test(arguments: [
            (1, repeatedHex("0b", 20), hex(utf8("Hi There")), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (
                2, hex(utf8("Jefe")), hex(utf8("what do ya want for nothing?")),
                "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
            ),
            (3, repeatedHex("aa", 20), repeatedHex("dd", 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (
                4, "0102030405060708090a0b0c0d0e0f10111213141516171819", repeatedHex("cd", 50),
                "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
            ),
            (5, repeatedHex("0c", 20), hex(utf8("Test With Truncation")), "a3b6167473100ee06e0c796c2955552b"),
            (
                6, repeatedHex("aa", 131), hex(utf8("Test Using Larger Than Block-Size Key - Hash Key First")),
                "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
            ),
            (
                7, repeatedHex("aa", 131),
                hex(
                    utf8(
                        "This is a test using a larger than block-size key and a larger than block-size data. "
                            + "The key needs to be hashed before being used by the HMAC algorithm.")),
                "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
            ),
        ])
        func rfc4231(testCase: Int, key: String, data: String, code: String) {
            let computed = hex(HMAC.authenticationCode(for: bytes(hex: data), key: bytes(hex: key)))
            #expect(computed.prefix(code.count) == code, "test case \(testCase)")
        }

        @Test func incrementalAndPrecomputedKeysGiveTheSameCode() {
            let key = bytes(hex: repeatedHex("aa", 131))
            let message = pseudorandomBytes(count: 200)
            let whole = HMAC.authenticationCode(for: message, key: key)
            for split in stride(from: 0, through: message.count, by: 13) {
                var hmac = HMAC(key: HMAC.Key(key))
                hmac.update(message[..<split])
                hmac.update(message[split...])
                #expect(hmac.finalize() == whole, "split at \(split)")
            }
        }

        /// PBKDF2's allocation-free round must equal HMAC over the 32 digest bytes.
        @Test func theDigestShortcutMatchesTheGeneralHMAC() {
            let key = HMAC.Key(utf8("Jefe"))
            let digest = SHA256.hash(utf8("abc"))
            var state = SHA256.State.initial
            digest.withUnsafeBytes { bytes in
                state = SHA256.State(
                    h0: word(bytes, 0), h1: word(bytes, 1), h2: word(bytes, 2), h3: word(bytes, 3),
                    h4: word(bytes, 4), h5: word(bytes, 5), h6: word(bytes, 6), h7: word(bytes, 7))
            }
            #expect(key.authenticationCode(ofDigest: state).bytes == HMAC.authenticationCode(for: digest, key: utf8("Jefe")))
        }

        private func word(_ bytes: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
            UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self))
        }
    }

    @Suite struct PBKDF2Tests {
        /// RFC 7914 §11, the PBKDF2-HMAC-SHA256 vectors.
        @Test func rfc7914OneIteration() {
            let key = PBKDF2.deriveKey(password: utf8("passwd"), salt: utf8("salt"), iterations: 1, byteCount: 64)
            #expect(
                hex(key)
                    == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                    + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
        }

        @Test(.tags(.slow)) func rfc7914EightyThousandIterations() {
            let key = PBKDF2.deriveKey(password: utf8("Password"), salt: utf8("NaCl"), iterations: 80000, byteCount: 64)
            #expect(
                hex(key)
                    == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56"
                    + "a1d425a1225833549adb841b51c9b3176a272bdebba1d078478f62b397f33c8d")
        }

        /// PostgreSQL's default iteration count. The c=2 and 20-byte cases (a key shorter than
        /// a digest) are from `python3 -c "import hashlib;
        /// print(hashlib.pbkdf2_hmac('sha256', b'password', b'salt', 2, 20).hex())"`.
        @Test(arguments: [
            (4096, 32, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
            (2, 32, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"),
            (2, 20, "ae4d0c95af6b46d32d0adff928f06dd02a303f8e"),
        ])
        func passwordAndSalt(iterations: Int, byteCount: Int, key: String) {
            #expect(
                hex(PBKDF2.deriveKey(password: utf8("password"), salt: utf8("salt"), iterations: iterations, byteCount: byteCount)) == key)
        }
    }

    @Suite struct MD5Tests {
        /// RFC 1321 appendix A.5, the whole test suite.
        @Test(arguments: [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ])
        func rfc1321(message: String, digest: String) {
            #expect(hex(MD5.hash(utf8(message))) == digest)
        }

        @Test func everySplitPointGivesTheSameDigest() {
            let message = pseudorandomBytes(count: 200)
            let whole = MD5.hash(message)
            for split in 0...message.count {
                var hash = MD5()
                hash.update(message[..<split])
                hash.update(message[split...])
                #expect(hash.finalize() == whole, "split at \(split)")
            }
        }

        /// Computed with
        /// `python3 -c "import hashlib; s=bytes([1,2,3,4]); i=hashlib.md5(b'secret'+b'postgres').hexdigest(); print('md5'+hashlib.md5(i.encode()+s).hexdigest())"`.
        @Test func postgreSQLPasswordAnswer() {
            let answer = MD5.postgreSQLPasswordAnswer(user: "postgres", password: "secret", salt: [1, 2, 3, 4])
            #expect(String(decoding: answer, as: UTF8.self) == "md5bb41a296aab6baccb36ff243a562abff")
        }
    }

    @Suite struct SASLprepTests {
        /// RFC 4013 §3's examples, with PostgreSQL's answer where SASLprep refuses: the raw
        /// bytes (an ASCII password is never changed).
        @Test(arguments: [
            ("I\u{00AD}X", "IX"),  // soft hyphen mapped to nothing
            ("user", "user"),
            ("USER", "USER"),
            ("\u{00AA}", "a"),  // NFKC
            ("\u{2168}", "IX"),  // NFKC
            ("\u{0007}", "\u{0007}"),  // prohibited, but ASCII: as is
            ("\u{0627}\u{0031}", "\u{0627}\u{0031}"),  // fails the bidi rule: raw, which NFKC leaves alone
        ])
        func rfc4013Examples(password: String, prepared: String) {
            #expect(SASLprep.preparedPassword(password) == utf8(prepared))
        }

        @Test(arguments: [
            ("a\u{00A0}b\u{3000}c", "a b c"),  // non-ASCII spaces become U+0020
            ("pa\u{0308}ssword", "p\u{00E4}ssword"),  // composed
            ("\u{FB01}x", "fix"),  // compatibility ligature
            ("\u{00AD}", "\u{00AD}"),  // nothing left after mapping: raw
            ("\u{E000}\u{00E4}", "\u{E000}\u{00E4}"),  // private use is prohibited: raw
            ("a\u{0308}\u{0221}", "a\u{0308}\u{0221}"),  // unassigned in Unicode 3.2: raw, not composed
            ("a\u{0308}\u{FFFE}", "a\u{0308}\u{FFFE}"),  // non-character: raw
        ])
        func postgreSQLPreparation(password: String, prepared: String) {
            #expect(SASLprep.preparedPassword(password) == utf8(prepared))
        }
    }

    @Suite struct SCRAMSHA256Tests {
        static let rfcServerFirst = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"

        static func rfcExchange() -> SCRAMSHA256 {
            SCRAMSHA256(password: "pencil", user: "user", nonce: "rOprNGfwEbeRWgbNEkqO")
        }

        /// RFC 7677 §3, byte for byte.
        @Test func theRFC7677ExampleExchange() throws {
            var scram = Self.rfcExchange()
            #expect(text(scram.clientFirstMessage) == "n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
            let final = try scram.clientFinalMessage(serverFirst: utf8(Self.rfcServerFirst))
            #expect(
                text(final)
                    == "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
            try scram.verify(serverFinal: utf8("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
        }

        /// An exchange as PostgreSQL has it (empty user name), computed independently with
        /// Python's hashlib and hmac: salted = pbkdf2_hmac("sha256", password, b64decode(salt),
        /// 4096), then RFC 5802 §3 on AuthMessage "n=,r=…" + "," + server-first + ","
        /// + "c=biws,r=…". The second password reaches Python as
        /// `unicodedata.normalize("NFKC", "pa\u0308ssw\u0308ord").encode()`.
        @Test(arguments: [
            (
                "correct horse", "p=ynYz1e+hST+EC7RAUs3DMAX3bP7u5UnNPwu9fFyQb8Y=",
                "v=TniF6Y/Y4iNgU+zcvauQC2d/Y9biwXTySAq1G1EYxuQ="
            ),
            (
                "pa\u{0308}ssw\u{0308}ord", "p=7br4jJ7QXUBvXcAxOxeNTJiBKvywuTBae4RVG0gHW7Y=",
                "v=+F5nFVKn/fZMML3mhSjVK7lE8aMGo71D5kiOF/VzRxk="
            ),
        ])
        func aPostgreSQLExchange(password: String, proof: String, serverFinal: String) throws {
            var scram = SCRAMSHA256(password: password, nonce: "fyko+d2lbbFgONRv9qkxdawL")
            #expect(text(scram.clientFirstMessage) == "n,,n=,r=fyko+d2lbbFgONRv9qkxdawL")
            let final = try scram.clientFinalMessage(
                serverFirst: utf8("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"))
            #expect(text(final) == "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j," + proof)
            try scram.verify(serverFinal: utf8(serverFinal))
        }

        @Test func theDefaultNonceIsEighteenRandomBytesInBase64() throws {
            let nonce = SCRAMSHA256.makeNonce()
            #expect(try #require(Data(base64Encoded: nonce)).count == 18)
            #expect(nonce != SCRAMSHA256.makeNonce())
            let first = text(SCRAMSHA256(password: "x").clientFirstMessage)
            #expect(first.hasPrefix("n,,n=,r=") && first.count == "n,,n=,r=".count + 24)
        }

        @Test func userNamesAreEscaped() {
            let scram = SCRAMSHA256(password: "x", user: "a=b,c", nonce: "abc")
            #expect(text(scram.clientFirstMessage) == "n,,n=a=3Db=2Cc,r=abc")
        }

        static let salt = "s=W22ZaJ0SNY7soEsUEjb6gQ=="
        static let ourNonce = "r=rOprNGfwEbeRWgbNEkqO"

        @Test(arguments: [
            // The nonce: someone else's, ours with nothing added, not printable.
            ("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,\(salt),i=4096", SCRAMError.nonceMismatch),
            ("\(ourNonce),\(salt),i=4096", .nonceMismatch),
            ("r=rOprNGfwEbeRWgbNEkq,\(salt),i=4096", .nonceMismatch),
            ("r=,\(salt),i=4096", .nonceMismatch),
            ("\(ourNonce)x y,\(salt),i=4096", .malformedMessage),
            ("\(ourNonce)\u{E9},\(salt),i=4096", .malformedMessage),
            // The iteration count.
            ("\(ourNonce)x,\(salt),i=0", .iterationCountOutOfRange),
            ("\(ourNonce)x,\(salt),i=10000001", .iterationCountOutOfRange),
            ("\(ourNonce)x,\(salt),i=99999999999999999999999999999", .iterationCountOutOfRange),
            ("\(ourNonce)x,\(salt),i=four", .invalidIterationCount),
            ("\(ourNonce)x,\(salt),i=-1", .invalidIterationCount),
            ("\(ourNonce)x,\(salt),i=+4096", .invalidIterationCount),
            ("\(ourNonce)x,\(salt),i=04096", .invalidIterationCount),
            ("\(ourNonce)x,\(salt),i=4096 ", .invalidIterationCount),
            ("\(ourNonce)x,\(salt),i=", .invalidIterationCount),
            // The salt.
            ("\(ourNonce)x,s=W22ZaJ0SNY7soEsUEjb6gQ,i=4096", .invalidSalt),
            ("\(ourNonce)x,s=W22ZaJ0S!Y7soEsUEjb6gQ==,i=4096", .invalidSalt),
            ("\(ourNonce)x,s=====,i=4096", .invalidSalt),
            ("\(ourNonce)x,s=QR==,i=4096", .invalidSalt),
            ("\(ourNonce)x,s=,i=4096", .invalidSalt),
            // Attributes missing, out of order, or malformed.
            ("\(salt),i=4096", .missingAttribute("r")),
            ("\(ourNonce)x,i=4096", .missingAttribute("s")),
            ("\(ourNonce)x,\(salt)", .missingAttribute("i")),
            ("\(ourNonce)x,i=4096,\(salt)", .missingAttribute("s")),
            ("m=must-know,\(ourNonce)x,\(salt),i=4096", .unsupportedMandatoryExtension),
            ("", .malformedMessage),
            ("\(ourNonce)x,\(salt),i=4096,", .malformedMessage),
            ("\(ourNonce)x,\(salt),i=4096,x", .malformedMessage),
            ("\(ourNonce)x,\(salt),i=4096,1=2", .malformedMessage),
        ])
        func aBadServerFirstMessageIsRefused(message: String, error: SCRAMError) {
            var scram = Self.rfcExchange()
            #expect(throws: error) { _ = try scram.clientFinalMessage(serverFirst: utf8(message)) }
        }

        @Test func aServerFirstMessageThatIsNotUTF8IsRefused() {
            var scram = Self.rfcExchange()
            #expect(throws: SCRAMError.malformedMessage) { _ = try scram.clientFinalMessage(serverFirst: utf8(Self.ourNonce) + [0xFF]) }
        }

        @Test func extensionsAfterTheIterationCountAreIgnored() throws {
            var scram = Self.rfcExchange()
            let final = try scram.clientFinalMessage(serverFirst: utf8(Self.rfcServerFirst + ",x=whatever=goes"))
            #expect(text(final).hasPrefix("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p="))
        }

        /// The default limit, up to and past, without deriving a key that large.
        @Test func theIterationCountLimit() throws {
            let nonce = utf8("rOprNGfwEbeRWgbNEkqO")
            let limit = SCRAMSHA256.defaultMaximumIterationCount
            #expect(limit == 10_000_000)
            let atLimit = try SCRAMSHA256.ServerFirst(
                utf8("\(Self.ourNonce)x,\(Self.salt),i=\(limit)"), clientNonce: nonce, maximumIterationCount: limit)
            #expect(atLimit.iterationCount == limit)
            #expect(throws: SCRAMError.iterationCountOutOfRange) {
                try SCRAMSHA256.ServerFirst(
                    utf8("\(Self.ourNonce)x,\(Self.salt),i=\(limit + 1)"), clientNonce: nonce, maximumIterationCount: limit)
            }
            // No limit at all still refuses a count that does not fit in an Int, without trapping.
            #expect(throws: SCRAMError.iterationCountOutOfRange) {
                try SCRAMSHA256.ServerFirst(
                    utf8("\(Self.ourNonce)x,\(Self.salt),i=9223372036854775808"), clientNonce: nonce, maximumIterationCount: .max)
            }
            let largest = try SCRAMSHA256.ServerFirst(
                utf8("\(Self.ourNonce)x,\(Self.salt),i=9223372036854775807"), clientNonce: nonce, maximumIterationCount: .max)
            #expect(largest.iterationCount == .max)
            var lowered = SCRAMSHA256(password: "pencil", user: "user", nonce: "rOprNGfwEbeRWgbNEkqO", maximumIterationCount: 4095)
            #expect(throws: SCRAMError.iterationCountOutOfRange) {
                _ = try lowered.clientFinalMessage(serverFirst: utf8(Self.rfcServerFirst))
            }
        }

        @Test(arguments: [
            // Another exchange's signature, one bit off, and our own proof sent back.
            ("v=TniF6Y/Y4iNgU+zcvauQC2d/Y9biwXTySAq1G1EYxuQ=", SCRAMError.serverSignatureMismatch),
            ("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G0=", .serverSignatureMismatch),
            ("v=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", .serverSignatureMismatch),
            ("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4", .invalidServerSignature),
            ("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl9", .invalidServerSignature),
            ("v=", .invalidServerSignature),
            ("e=invalid-proof", .serverError("invalid-proof")),
            ("e=other-error,x=more", .serverError("other-error")),
            ("r=6rriTRBi23WpRR", .missingAttribute("v")),
            ("", .malformedMessage),
            ("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=,", .malformedMessage),
        ])
        func aBadServerFinalMessageIsRefused(message: String, error: SCRAMError) throws {
            var scram = Self.rfcExchange()
            _ = try scram.clientFinalMessage(serverFirst: utf8(Self.rfcServerFirst))
            #expect(throws: error) { try scram.verify(serverFinal: utf8(message)) }
        }

        @Test func messagesOutOfOrderAreRefused() throws {
            var scram = Self.rfcExchange()
            #expect(throws: SCRAMError.outOfOrder) { try scram.verify(serverFinal: utf8("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")) }
            _ = try scram.clientFinalMessage(serverFirst: utf8(Self.rfcServerFirst))
            #expect(throws: SCRAMError.outOfOrder) { _ = try scram.clientFinalMessage(serverFirst: utf8(Self.rfcServerFirst)) }
        }
    }
}

private func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
}

private func repeatedHex(_ byte: String, _ count: Int) -> String { String(repeating: byte, count: count) }

private func bytes(hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) ?? 0 }
}

/// Bytes that cover all values in no regular pattern, the same on every run.
private func pseudorandomBytes(count: Int) -> [UInt8] {
    var state: UInt32 = 0x1234_5678
    return (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}
