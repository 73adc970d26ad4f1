import Testing

@testable import TripsServer

@Suite struct DatabaseURLTests {
    @Test func aFullURLGivesEveryPart() throws {
        let url = try DatabaseURL(
            "postgres://trips:s%40cr%C3%A9t%3A@db.internal:5433/trips_prod?application_name=trips-web&connect_timeout=5")
        #expect(url.address == .tcp(host: "db.internal", port: 5433))
        #expect(url.user == "trips")
        #expect(url.password == "s@crét:")
        #expect(url.database == "trips_prod")
        #expect(url.applicationName == "trips-web")
        #expect(url.connectTimeout == .seconds(5))
    }

    @Test(arguments: [
        // (URL, address, user, database)
        ("postgresql://trips@localhost/trips", PostgresAddress.tcp(host: "localhost", port: 5432), "trips" as String?, "trips" as String?),
        ("POSTGRES://u@h/d", .tcp(host: "h", port: 5432), "u", "d"),
        ("postgres://127.0.0.1:6543", .tcp(host: "127.0.0.1", port: 6543), nil, nil),
        ("postgres://u@[::1]:5433/d", .tcp(host: "::1", port: 5433), "u", "d"),
        ("postgres://[2001:db8::7]/d", .tcp(host: "2001:db8::7", port: 5432), nil, "d"),
        ("postgres://h/", .tcp(host: "h", port: 5432), nil, nil),
        ("postgres://h/d?", .tcp(host: "h", port: 5432), nil, "d"),
        ("postgres://@h/d", .tcp(host: "h", port: 5432), nil, "d"),
        ("postgres://h/my%20db%2Fx", .tcp(host: "h", port: 5432), nil, "my db/x"),
        ("postgres://h/a/b", .tcp(host: "h", port: 5432), nil, "a/b"),
        ("postgres:///trips", .unixSocket(directory: "/var/run/postgresql", port: 5432), nil, "trips"),
        ("postgres:///trips?host=/var/run/postgresql", .unixSocket(directory: "/var/run/postgresql", port: 5432), nil, "trips"),
        ("postgres:///trips?host=/tmp/pg%20x&port=5555", .unixSocket(directory: "/tmp/pg x", port: 5555), nil, "trips"),
        ("postgres://postgres@%2Ftmp%2Fpg/trips", .unixSocket(directory: "/tmp/pg", port: 5432), "postgres", "trips"),
        ("postgres://postgres@/trips?host=%2Ftmp", .unixSocket(directory: "/tmp", port: 5432), "postgres", "trips"),
        ("postgres://ignored:1/d?host=other&port=2", .tcp(host: "other", port: 2), nil, "d"),
        ("postgres://h/d?user=alice&dbname=other&sslmode=disable", .tcp(host: "h", port: 5432), "alice", "other"),
        ("postgres://a%40b@h/d", .tcp(host: "h", port: 5432), "a@b", "d"),
        ("postgres://us:p@ss@h/d", .tcp(host: "h", port: 5432), "us", "d"),
    ])
    func partsAreFoundAndDecoded(text: String, address: PostgresAddress, user: String?, database: String?) throws {
        let url = try DatabaseURL(text)
        #expect(url.address == address)
        #expect(url.user == user)
        #expect(url.database == database)
    }

    @Test func theSocketFileIsNamedAfterThePort() throws {
        #expect(try DatabaseURL("postgres:///d?host=/tmp/pg").address.socketPath == "/tmp/pg/.s.PGSQL.5432")
        #expect(try DatabaseURL("postgres:///d?host=/tmp/pg/&port=6000").address.socketPath == "/tmp/pg/.s.PGSQL.6000")
        #expect(try DatabaseURL("postgres:///d?host=/").address.socketPath == "/.s.PGSQL.5432")
        #expect(try DatabaseURL("postgres://h/d").address.socketPath == nil)
    }

    @Test func aPasswordWithAnAtSignIsSplitAtTheLastOne() throws {
        let url = try DatabaseURL("postgres://us:p@ss@h/d")
        #expect(url.password == "p@ss")
    }

    @Test func theDescriptionNeverShowsThePassword() throws {
        let url = try DatabaseURL("postgres://trips:hunter2@db:5433/trips")
        #expect(url.description == "postgres://trips:***@db:5433/trips")
        #expect(!"\(url)".contains("hunter2"))
        #expect(try DatabaseURL("postgres:///t?host=/tmp").description == "postgres:///t?host=/tmp&port=5432")
        #expect(try DatabaseURL("postgres://[::1]/t").description == "postgres://[::1]:5432/t")
    }

    @Test(arguments: [
        // (URL, the error)
        ("mysql://h/d", DatabaseURLError.unsupportedScheme),
        ("postgres:/h/d", .unsupportedScheme),
        ("http://h", .unsupportedScheme),
        ("", .unsupportedScheme),
        ("postgres://h/d#x", .fragment),
        ("postgres://u%zz@h/d", .invalidPercentEncoding(.user)),
        ("postgres://u:p%4@h/d", .invalidPercentEncoding(.password)),
        ("postgres://u:p%@h/d", .invalidPercentEncoding(.password)),
        ("postgres://h/d%", .invalidPercentEncoding(.database)),
        ("postgres://%ZZ/d", .invalidPercentEncoding(.host)),
        ("postgres://h/d?host=%", .invalidPercentEncoding(.parameter("host"))),
        ("postgres://h/d?ho%st=x", .invalidPercentEncoding(.parameter("ho%st"))),
        ("postgres://u%FF@h/d", .invalidUTF8(.user)),
        ("postgres://h/%C3", .invalidUTF8(.database)),
        ("postgres://u%00@h/d", .invalidCharacter(.user)),
        ("postgres://u:%00@h/d", .invalidCharacter(.password)),
        ("postgres://h/d%00", .invalidCharacter(.database)),
        ("postgres://h/d?application_name=a%00", .invalidCharacter(.parameter("application_name"))),
        ("postgres://h:/d", .invalidPort("")),
        ("postgres://h:0/d", .invalidPort("0")),
        ("postgres://h:65536/d", .invalidPort("65536")),
        ("postgres://h:+80/d", .invalidPort("+80")),
        ("postgres://h:80a/d", .invalidPort("80a")),
        ("postgres://h:99999999999999999999/d", .invalidPort("99999999999999999999")),
        ("postgres://h/d?port=-1", .invalidPort("-1")),
        ("postgres://h1,h2/d", .multipleHosts),
        ("postgres://h1:5432,h2:5433/d", .multipleHosts),
        ("postgres:///d?host=a,b", .multipleHosts),
        ("postgres://[::1/d", .invalidHost("[::1")),
        ("postgres://[::1]x/d", .invalidHost("[::1]x")),
        ("postgres://[]/d", .invalidHost("[]")),
        ("postgres://::1/d", .invalidPort(":1")),
        ("postgres://a%20b/d", .invalidHost("a b")),
        ("postgres://h/d?host=a%5Cb", .invalidHost("a\\b")),
        ("postgres://h/d?host=relative/dir", .relativeSocketDirectory("relative/dir")),
        ("postgres://h/d?sslmode=require", .tlsNotSupported(sslmode: "require")),
        ("postgres://h/d?sslmode=prefer", .tlsNotSupported(sslmode: "prefer")),
        ("postgres://h/d?sslmode=verify-full", .tlsNotSupported(sslmode: "verify-full")),
        ("postgres://h/d?sslmode=", .tlsNotSupported(sslmode: "")),
        ("postgres://h/d?options=-c%20x", .unknownParameter("options")),
        ("postgres://h/d?sslrootcert=x", .unknownParameter("sslrootcert")),
        ("postgres://h/d?port=1&port=2", .duplicateParameter("port")),
        ("postgres://h/d?port", .invalidParameter(name: "port", value: "")),
        ("postgres://h/d?port=1&&dbname=2", .invalidParameter(name: "", value: "")),
        ("postgres://h/d?connect_timeout=0", .invalidParameter(name: "connect_timeout", value: "0")),
        ("postgres://h/d?connect_timeout=1.5", .invalidParameter(name: "connect_timeout", value: "1.5")),
        ("postgres://h/d?connect_timeout=-3", .invalidParameter(name: "connect_timeout", value: "-3")),
        ("postgres://h/d?connect_timeout=86401", .invalidParameter(name: "connect_timeout", value: "86401")),
        (
            "postgres:///d?host=/" + String(repeating: "x", count: 100),
            .socketPathTooLong("/" + String(repeating: "x", count: 100) + "/.s.PGSQL.5432")
        ),
    ])
    func aMalformedURLIsATypedError(text: String, expected: DatabaseURLError) {
        #expect(throws: expected) { try DatabaseURL(text) }
    }

    @Test func theLongestSocketPathFits() throws {
        let directory = "/" + String(repeating: "x", count: PostgresAddress.maxSocketPathLength - "/.s.PGSQL.5432".utf8.count - 1)
        let url = try DatabaseURL("postgres:///d?host=\(directory)")
        #expect(url.address.socketPath?.utf8.count == PostgresAddress.maxSocketPathLength)
        #expect(throws: DatabaseURLError.self) { try DatabaseURL("postgres:///d?host=\(directory)x") }
    }

    @Test func errorSentencesNeverQuoteThePassword() {
        #expect(throws: DatabaseURLError.tlsNotSupported(sslmode: "require")) {
            try DatabaseURL("postgres://u:hunter2@h/d?sslmode=require")
        }
        #expect(DatabaseURLError.tlsNotSupported(sslmode: "require").description.contains("TLS is not built in"))
        #expect(!DatabaseURLError.invalidPercentEncoding(.password).description.contains("hunter2"))
    }
}
