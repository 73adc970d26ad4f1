import Foundation
import TripsClient

/// `trips`: the service from a terminal (`trips --help`). Exit 0 done, 1 refused or
/// unreachable, 2 a usage error.
let invocation: Invocation
do {
    invocation = try Invocation(arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch {
    FileHandle.standardError.write(Data(Usage.error(error).utf8))
    exit(2)
}
exit(await invocation.run())
