// swift-tools-version:6.0
// Chakra: a display daemon for meditation kiosks and touchscreen boards.
//
// The module split follows the OS boundary: the pure modules (ChakraRaster,
// ChakraMotion, ChakraScenes) import no C library and make no system calls,
// so everything above the kernel is unit-testable on any machine.
import PackageDescription

// The renderer is the product: build it optimised even in debug builds would
// be nice, but SwiftPM has no per-target optimisation level. `make` builds
// release for anything that is timed.
let package = Package(
    name: "Chakra",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "chakrad", targets: ["chakrad"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // System libraries, each behind a shim header.
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"])]
        ),

        // Pure: surfaces, geometry, coverage, paints, blur, blending, pixel formats.
        .target(name: "ChakraRaster"),
        // Pure: timing curves, keyframes, springs.
        .target(name: "ChakraMotion"),
        // Pure: the scenes, each a function of time drawing through ChakraRaster.
        .target(name: "ChakraScenes", dependencies: ["ChakraRaster", "ChakraMotion"]),
        // PNG encoding and decoding through libpng's simplified API.
        .target(name: "ChakraPNG", dependencies: ["CPNG"]),

        .executableTarget(
            name: "chakrad",
            dependencies: [
                "ChakraRaster", "ChakraMotion", "ChakraScenes", "ChakraPNG",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "ChakraRasterTests", dependencies: ["ChakraRaster", "ChakraPNG"]),
        .testTarget(name: "ChakraMotionTests", dependencies: ["ChakraMotion"]),
        .testTarget(name: "ChakraScenesTests", dependencies: ["ChakraScenes", "ChakraRaster", "ChakraMotion", "ChakraPNG"]),
    ],
    swiftLanguageModes: [.v6]
)
