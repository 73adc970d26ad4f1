// The system's zlib (Debian: zlib1g-dev for the header, zlib1g at run time), for gzip
// content coding. Package.swift's CZlib target; Sources/TripsPlatform/Compression/Gzip.swift
// wraps it.
#include <zlib.h>
