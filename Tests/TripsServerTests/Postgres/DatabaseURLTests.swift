import Testing
@testable import TripsPostgres
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
        ("postgres://h/d?host=%", .invalidPercentEncoding(.parameter(.host))),
        ("postgres://h/d?ho%st=x", .invalidPercentEncoding(.parameterName)),
        ("postgres://u%FF@h/d", .invalidUTF8(.user)),
        ("postgres://h/%C3", .invalidUTF8(.database)),
        ("postgres://u%00@h/d", .invalidCharacter(.user)),
        ("postgres://u:%00@h/d", .invalidCharacter(.password)),
        ("postgres://h/d%00", .invalidCharacter(.database)),
        ("postgres://h/d?application_name=a%00", .invalidCharacter(.parameter(.applicationName))),
        ("postgres://h:/d", .invalidPort),
        ("postgres://h:0/d", .invalidPort),
        ("postgres://h:65536/d", .invalidPort),
        ("postgres://h:+80/d", .invalidPort),
        ("postgres://h:80a/d", .invalidPort),
        ("postgres://h:99999999999999999999/d", .invalidPort),
        ("postgres://h/d?port=-1", .invalidPort),
        ("postgres://h1,h2/d", .multipleHosts),
        ("postgres://h1:5432,h2:5433/d", .multipleHosts),
        ("postgres:///d?host=a,b", .multipleHosts),
        ("postgres://[::1/d", .invalidHost),
        ("postgres://[::1]x/d", .invalidHost),
        ("postgres://[]/d", .invalidHost),
        ("postgres://::1/d", .invalidPort),
        ("postgres://a%20b/d", .invalidHost),
        ("postgres://h/d?host=a%5Cb", .invalidHost),
        ("postgres://h/d?host=relative/dir", .relativeSocketDirectory),
        ("postgres://h/d?sslmode=require", .tlsNotSupported),
        ("postgres://h/d?sslmode=prefer", .tlsNotSupported),
        ("postgres://h/d?sslmode=verify-full", .tlsNotSupported),
        ("postgres://h/d?sslmode=", .tlsNotSupported),
        ("postgres://h/d?options=-c%20x", .unknownParameter),
        ("postgres://h/d?sslrootcert=x", .unknownParameter),
        ("postgres://h/d?port=1&port=2", .duplicateParameter(.port)),
        ("postgres://h/d?port", .malformedQuery),
        ("postgres://h/d?port=1&&dbname=2", .malformedQuery),
        ("postgres://h/d?connect_timeout=0", .invalidParameter(.connectTimeout)),
        ("postgres://h/d?connect_timeout=1.5", .invalidParameter(.connectTimeout)),
        ("postgres://h/d?connect_timeout=-3", .invalidParameter(.connectTimeout)),
        ("postgres://h/d?connect_timeout=86401", .invalidParameter(.connectTimeout)),
        ("postgres://h/d?require_auth=", .invalidParameter(.requireAuth)),
        ("postgres://h/d?require_auth=md5,", .invalidParameter(.requireAuth)),
        ("postgres://h/d?require_auth=MD5", .invalidParameter(.requireAuth)),
        ("postgres://h/d?require_auth=scram-sha-256-plus", .invalidParameter(.requireAuth)),
        ("postgres://h/d?require_auth=gss", .unsupportedAuthenticationMethod(.gss)),
        ("postgres://h/d?require_auth=md5,sspi", .unsupportedAuthenticationMethod(.sspi)),
        ("postgres://h/d?require_auth=!password", .negatedAuthenticationMethod),
        ("postgres:///d?host=/" + String(repeating: "x", count: 100), .socketPathTooLong),
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

    /// The URL of issue 26: the password's `?` used to start the query, and `p4ss` was
    /// refused as a port, quoted.
    @Test(arguments: ["p4ss?w0rd", "p#ss", "p@ss?x=1", "p:ss", "?", "a?b#c@d"])
    func aPasswordWithQueryOrFragmentCharactersNeedsNoEncoding(password: String) throws {
        let url = try DatabaseURL("postgres://trips:\(password)@db/trips?application_name=me@example")
        #expect(url.user == "trips")
        #expect(url.password == password)
        #expect(url.address == .tcp(host: "db", port: 5432))
        #expect(url.database == "trips")
        #expect(url.applicationName == "me@example")
    }

    /// However a URL is mangled, the sentence names the part and quotes none of it: a
    /// password may land in the port, the host, a parameter's name or value.
    @Test(arguments: [
        "postgres://trips:hunter2/x@db/trips", "postgres://db:hunter2/trips", "postgres://[hunter2/trips", "postgres://hun%20ter2/trips",
        "postgres://db/trips?hunter2=1", "postgres://db/trips?hunter2", "postgres://db/trips?host=hunter2/x",
        "postgres://db/trips?sslmode=hunter2", "postgres://db/trips?require_auth=hunter2", "postgres://db/trips?require_auth=!hunter2",
        "postgres://db/trips?connect_timeout=hunter2", "postgres://db/trips?port=hunter2", "postgres://db/trips?hunter2=1&hunter2=2",
        "postgres://db/trips#hunter2", "postgres:///d?host=/hunter2" + String(repeating: "x", count: 100),
    ])
    func errorSentencesNeverQuoteTheURL(text: String) throws {
        let error = try #require(throws: DatabaseURLError.self) { try DatabaseURL(text) }
        #expect(!"\(error)".contains("hunter"), "\(error)")
    }

    @Test func requireAuthListsTheMethodsAllowed() throws {
        let listed = try DatabaseURL("postgres://u:p@h/d?require_auth=password,md5")
        #expect(listed.requiredAuthentication == PostgresRequiredAuthentication([.password, .md5]))
        let configuration = try #require(PostgresConnectionConfiguration(url: listed))
        #expect(configuration.allowedAuthentication.methods == [.password, .md5])
        #expect(try DatabaseURL("postgres://h/d?require_auth=none").requiredAuthentication?.methods == [.noAuthentication])
        #expect(try DatabaseURL("postgres://h/d?require_auth=scram-sha-256").requiredAuthentication?.methods == [.scramSHA256])
    }

    @Test func withoutRequireAuthOnlySCRAMIsAllowedAndNoAuthenticationOnlyWithoutAPassword() throws {
        let withPassword = try #require(PostgresConnectionConfiguration(url: try DatabaseURL("postgres://u:p@h/d")))
        #expect(withPassword.allowedAuthentication.methods == [.scramSHA256])
        let withoutPassword = try #require(PostgresConnectionConfiguration(url: try DatabaseURL("postgres://u@h/d")))
        #expect(withoutPassword.allowedAuthentication.methods == [.scramSHA256, .noAuthentication])
    }

    @Test func theTLSRefusalSaysWhatToDoInstead() {
        #expect(throws: DatabaseURLError.tlsNotSupported) { try DatabaseURL("postgres://u:hunter2@h/d?sslmode=require") }
        #expect(DatabaseURLError.tlsNotSupported.description.contains("TLS is not built in"))
        #expect(DatabaseURLError.tlsNotSupported.description.contains("sslmode=disable"))
    }
}
