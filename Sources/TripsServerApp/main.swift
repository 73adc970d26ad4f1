import TripsServer

// The `trips-server` executable: everything else lives in the TripsServer library.
TripsServerMain.main()
