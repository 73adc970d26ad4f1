/// The `trips-server` entry point.
@main
enum TripsServerMain {
    static func main() {
        print("trips-server: the HTTP layer is not built yet")
    }
}
