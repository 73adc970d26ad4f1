import Testing

/// What `.ci/run`'s fast stage leaves out (`live`), and a developer can too:
/// `swift test --skip-build --skip "$(scripts/lib/tagged-tests.sh live slow)"`. Swift 6.3's
/// `swift test` cannot choose tests by tag itself (README.md, Development).
extension Tag {
    /// Needs more than the test process: a PostgreSQL cluster (`scripts/lib/postgres.sh`; such
    /// tests skip themselves without one) or `trips-server` run as a child process.
    @Tag public static var live: Self

    /// Takes a second or more when the tests run one at a time: large inputs, every step or
    /// byte offset, clients that are slow on purpose.
    @Tag public static var slow: Self
}
