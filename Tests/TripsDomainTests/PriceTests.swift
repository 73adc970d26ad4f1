import Foundation
import Testing
import TripsFormats

@testable import TripsDomain

struct PriceTests {
    /// A price read from text has `Decimal.description`'s digits and `Decimal(string:)`'s
    /// value, without either being called for it.
    static let literals = [
        "1299.99", "1299.990", "0", "-0", "0.0", "-0.00", "000.5", "0.1", "0.000001", "2450", "100", "10", "1e3", "1E3",
        "1e+3", "123.456e2", "123.456e-2", "5e-3", "0.10", "-1.5", "-0.001", "1e-128", "1e127",
        "1234567890123456789012", "12345678901234567890.123456789", "12345678901234567890123456789012345678",
        "1234567890123456789", "12345678901234567890", "9999999999999999999.9", "0.00000000000000000000000000000000000000000001",
        "1000000000000000000000000000000000000000000", "10e126", "123456789012345678", "100.00", "0.005",
    ]

    @Test(arguments: literals)
    func digitsAreDecimalsDescription(literal: String) throws {
        let price = try Price(literal: literal.utf8)
        let decimal = try #require(Decimal(string: literal, locale: nil))
        #expect(price.value == decimal)
        #expect(price.digits == decimal.description)
        #expect(price.digits == Price(decimal).digits)
    }

    /// Every significand length a `Decimal` keeps, at exponents from far below to far above
    /// the point: the digits written from the parts are `Decimal.description`'s.
    @Test func digitsMatchDecimalsDescriptionAcrossLengthsAndExponents() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 1...Decimal.exactDigits {
            for exponent in [-128, -60, -39, -length - 1, -length, -length + 1, -2, -1, 0, 1, 2, 30, 127 - length, 89] {
                var significand = (0..<length).map { _ in UInt8.random(in: 0x30...0x39, using: &generator) }
                significand[0] = UInt8.random(in: 0x31...0x39, using: &generator)
                significand[length - 1] = UInt8.random(in: 0x31...0x39, using: &generator)
                for isNegative in [false, true] {
                    let literal = (isNegative ? "-" : "") + String(decoding: significand, as: UTF8.self) + "e\(exponent)"
                    guard let decimal = Decimal(string: literal, locale: nil) else { continue }
                    let price = Price(isNegative: isNegative, significand: significand, exponent: exponent)
                    #expect(price.value == decimal, "\(literal)")
                    #expect(price.digits == decimal.description, "\(literal)")
                }
            }
        }
    }

    @Test(arguments: [
        ("", PriceLiteralError.notANumber), ("-", .notANumber), ("1.", .notANumber), (".5", .notANumber), ("1e", .notANumber),
        ("1e-", .notANumber), ("abc", .notANumber), ("1x", .notANumber), ("1.2.3", .notANumber), ("NaN", .notANumber),
        ("123456789012345678901234567890123456789", .tooManyDigits), ("1e200", .outOfRange), ("1e-200", .outOfRange),
        ("1e99999999999999999999", .outOfRange),
    ])
    func textThatIsNoExactPriceIsRefused(literal: String, error: PriceLiteralError) {
        #expect(throws: error) { try Price(literal: literal.utf8) }
    }

    /// A JSON number is the price its literal is, digits included, whether or not it is
    /// spelled as a store writes one (which skips the general reading).
    @Test(arguments: literals)
    func jsonNumbersAreTheirLiteralsPrice(literal: String) throws {
        let read = try Price(json: .number(literal))
        let general = try Price(literal: literal.utf8)
        #expect(read == general)
        #expect(read.digits == general.digits)
    }

    /// Beyond what `Decimal(string:)` reads, the digits are still the number's.
    @Test func numbersFarFromThePointKeepTheirDigits() throws {
        #expect(try Price(literal: "1e128".utf8).digits == "1" + String(repeating: "0", count: 128))
        #expect(try Price(literal: "10e127".utf8) == Price(literal: "1e128".utf8))
        #expect(try Price(literal: "1.2e-127".utf8).digits == "0." + String(repeating: "0", count: 126) + "12")
        #expect(try Price(literal: "0e99999999999999999999".utf8).digits == "0")
        #expect(try Price(literal: "-0.0".utf8).digits == "0")
    }

    /// Equality, hashing and order are the number's, however it was made or written.
    @Test func equalityHashingAndOrderAreTheNumbers() throws {
        let written = try Price(literal: "1.50".utf8)
        let made = Price(Decimal(string: "1.5", locale: nil) ?? 0)
        #expect(written == made)
        #expect(Set([written, made]).count == 1)
        let prices = try ["10", "9.99", "-1", "0", "1e2", "99.5"].map { try Price(literal: $0.utf8) }
        #expect(prices.sorted().map(\.digits) == ["-1", "0", "9.99", "10", "99.5", "100"])
        #expect(prices.sorted().map(\.value) == prices.map(\.value).sorted())
    }

    /// Setting a trip's `price` keeps its digits in step.
    @Test func settingThePriceRewritesItsDigits() {
        var draft = TripDraft(city: "A", country: "B", nights: 1, price: 12, start: Date(timeIntervalSince1970: 0))
        draft.price = Decimal(string: "1499.50", locale: nil) ?? 0
        #expect(draft.exactPrice.digits == "1499.5")
        var trip = Trip(id: 1, draft: draft)
        #expect(trip.exactPrice.digits == "1499.5")
        trip.price = 7
        #expect(trip.exactPrice.digits == "7")
    }
}

extension PriceTests {
    /// A stored price keeps its bytes as its digits; any other form is left to the general reader.
    @Test(arguments: [
        ("0", true), ("7", true), ("2450", true), ("1299.99", true), ("0.005", true), ("123456789012345678", true),
        ("0.0", true), ("1.50", true), ("100.00", true), ("1234567890123456789", false), ("12345678.90123456789", false),
        ("01", false), ("-1", false), ("1e3", false), (".5", false), ("5.", false), ("", false), ("1.2.3", false),
    ])
    func storedDigitsAreTakenAsTheyAre(text: String, isTaken: Bool) throws {
        let price = Array(text.utf8).withUnsafeBytes { Price(storedDigits: $0) }
        #expect((price != nil) == isTaken)
        if let price {
            let decimal = try #require(Decimal(string: text, locale: nil))
            #expect(price.value == decimal)
            #expect(price.digits == decimal.description)
        }
    }
}
