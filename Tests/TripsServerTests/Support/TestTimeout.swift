import Glibc

/// How long tests wait for what should happen (an answer, a child's start, a notification)
/// before they call it a failure, scaled here, once, for sanitizer builds.
///
/// ThreadSanitizer slows the code 5-15 times and AddressSanitizer about twice: a wait that is
/// generous for a plain build fails there once the machine is busy. Waits that check that
/// nothing happens within a time are not scaled: they would only make the suite slower.
enum TestTimeout {
    /// 1 in a plain build, 12 under ThreadSanitizer, 3 under AddressSanitizer: the process
    /// finds its sanitizer's runtime, so `swift test --sanitize=…` run by hand scales too.
    /// (TSan was 6 until a whole run took 150 s for the 3,000-trip page test and one of its
    /// reads passed 30 s.)
    static let scale: Int = {
        guard let process = dlopen(nil, RTLD_NOW) else { return 1 }
        defer { dlclose(process) }
        if dlsym(process, "__tsan_init") != nil { return 12 }
        if dlsym(process, "__asan_init") != nil { return 3 }
        return 1
    }()
}
