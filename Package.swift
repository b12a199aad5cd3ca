// swift-tools-version:6.0
// Chakra: a display daemon for meditation kiosks and touchscreen boards.
//
// The module split follows the OS boundary: the renderer's modules
// (ChakraRaster, ChakraMotion, ChakraScenes) link no C library and make no
// system calls but for ChakraRaster's worker threads (WorkerPool; its C
// imports, CStreamStore and CLanes, are CPU instructions), so everything
// above the kernel is unit-testable on any machine. System calls go through
// ChakraSystem (docs/architecture.md).
import PackageDescription

// The per-pixel modules read class properties (surface placement, scratch
// rows) inside their loops; Swift checks each such access for exclusivity
// at run time (swift_beginAccess), a few percent of a frame. These modules
// hand their buffers to worker threads under their own rules (WorkerPool),
// so the checks buy nothing there.
// They are optimised in debug builds too (-O after SwiftPM's -Onone; the
// last level given wins): unoptimised, the renderer is 10 to 30 times
// slower, and the unit tests that render whole frames against Chromium's
// (ChakraScenesTests) took five minutes of two cores in `swift test`,
// crowding the tests that measure time beside them. The frames tested are
// then the optimised code's, as shipped. `make` builds release for
// anything that is timed.
let hotPath: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"]),
    .unsafeFlags(["-O"], .when(configuration: .debug)),
]

let package = Package(
    name: "Chakra",
    products: [
        .executable(name: "chakrad", targets: ["chakrad"]),
        .executable(name: "chakractl", targets: ["chakractl"]),
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
        .systemLibrary(
            name: "CDRM",
            pkgConfig: "libdrm",
            providers: [.apt(["libdrm-dev"])]
        ),
        .systemLibrary(
            name: "CFreeType",
            pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"])]
        ),
        .systemLibrary(
            name: "CEvdev",
            pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]
        ),
        // Header-only: fbdev, console (KD/VT) and signalfd/eventfd/netlink
        // declarations and ioctl wrappers; the kernel headers come with libc.
        .systemLibrary(name: "CLinuxKernel"),
        // Header-only: the CPU's streaming store for finished frame rows.
        .systemLibrary(name: "CStreamStore"),
        .systemLibrary(name: "CLanes"),
        // Header-only: glibc's allocator controls (mallopt), for chakrad run.
        .systemLibrary(name: "CAllocator"),

        // The one funnel for system calls (`Syscall`: EINTR retried, errno
        // named, faults injectable by tests), clocks, wake-ups, signals,
        // poll(2), threads, sd_notify (with systemd's descriptor store and
        // the descriptors it passes back), Unix sockets and memory files.
        // Every module that talks to the kernel does it through here.
        .target(
            name: "ChakraSystem",
            dependencies: ["CLinuxKernel"]
        ),

        // Surfaces, geometry, coverage, paints, blur, blending, pixel formats,
        // the final pass; its one system resource is the worker threads.
        .target(name: "ChakraRaster", dependencies: ["CStreamStore", "CLanes"], swiftSettings: hotPath),
        // Pure: timing curves, keyframes, springs.
        .target(name: "ChakraMotion"),
        // Pure: the scenes, each a function of time drawing through ChakraRaster.
        .target(name: "ChakraScenes", dependencies: ["ChakraRaster", "ChakraMotion"], swiftSettings: hotPath),
        // Type: FreeType faces, glyph coverage cached per size, line layout
        // (advances + kerning), text drawn into surfaces; string catalogs per
        // language. The only importer of CFreeType.
        .target(
            name: "ChakraText",
            dependencies: [
                "CFreeType", "ChakraSystem", "ChakraRaster", "ChakraConfig",
            ],
            swiftSettings: hotPath
        ),
        // The spiral-breathing exercise: its geometry and state machine (pure,
        // plain calls with times), and its scene, which draws text through
        // ChakraText (so it lives apart from ChakraScenes, which stays pure).
        .target(
            name: "ChakraSpiral",
            dependencies: ["CLanes", "ChakraRaster", "ChakraMotion", "ChakraScenes", "ChakraText", "ChakraConfig"],
            swiftSettings: hotPath
        ),
        // PNG encoding and decoding through libpng's simplified API.
        .target(name: "ChakraPNG", dependencies: ["CPNG"]),
        // The OS boundary for screens: DRM/KMS, fbdev and headless outputs,
        // the virtual terminal, hotplug uevents, the TV's power over
        // HDMI-CEC (its own thread). The only importer of CDRM;
        // its decisions (mode choice,
        // pixel layouts, pacing, message formats) are plain Swift types.
        .target(
            name: "ChakraDisplay",
            dependencies: [
                "CDRM", "CLinuxKernel", "ChakraSystem", "ChakraRaster", "ChakraPNG", "ChakraConfig",
            ]
        ),
        // Touch input: the pure tracker (raw events to contacts) and mapping
        // (device coordinates to scene pixels) in Logic/; libevdev devices,
        // discovery, hotplug (inotify) and force feedback in Device/, the
        // only importer of CEvdev.
        .target(
            name: "ChakraInput",
            dependencies: [
                "CEvdev", "ChakraSystem", "ChakraRaster", "ChakraDisplay", "ChakraConfig",
            ]
        ),
        // The configuration model with its defaults, and its reading from
        // TOML (keys, types, ranges, line numbers for errors), by its own
        // TOML reader, which the string catalogues use too (TOMLKit and its
        // toml++ aborted on bad files and leaked every document read;
        // docs/robustness.md). Reads files through ChakraSystem.
        .target(name: "ChakraConfig", dependencies: ["ChakraControl", "ChakraSystem", "ChakraSchedule"]),
        // Pure: the control protocol (requests, replies, events, error codes,
        // JSON and line framing). No sockets; shared by chakrad and chakractl.
        .target(name: "ChakraControl"),
        // The control socket server: its own thread, poll(2), non-blocking
        // Unix sockets, limits; hands parsed requests to a handler.
        .target(
            name: "ChakraControlServer",
            dependencies: [
                "ChakraControl", "ChakraSystem",
            ]
        ),
        // Opening hours: weekly windows and dated exceptions evaluated on
        // the local wall clock (DST, clock steps); pure but for reading
        // the system's time zone rules through ChakraSystem.
        .target(name: "ChakraSchedule", dependencies: ["ChakraSystem"]),
        // The session log: one checksummed line per spiral exercise,
        // appended and synced so a power cut loses at most the record being
        // written; compaction by age and size; the per-day history
        // `chakractl stats` reads. Files through ChakraSystem, local days
        // through ChakraSchedule's zones.
        .target(name: "ChakraSessions", dependencies: ["ChakraSystem", "ChakraSchedule"]),
        // Continuity across restarts (issue 30, docs/seams.md): the
        // continuation record (pure: the value and its versioned text) and
        // the thin layer that keeps it in a memory file in systemd's file
        // descriptor store, through ChakraSystem; the names stored
        // descriptors go by.
        .target(name: "ChakraContinuity", dependencies: ["ChakraSystem"]),
        // The daemon: the frame loop that owns the output and the scene,
        // signals, readiness, and the command queue the control socket feeds.
        .target(
            name: "ChakraDaemon",
            dependencies: [
                "ChakraSystem", "ChakraDisplay", "ChakraScenes", "ChakraRaster", "ChakraPNG",
                "ChakraConfig", "ChakraControl", "ChakraControlServer", "ChakraSpiral", "ChakraText", "ChakraInput", "ChakraSchedule", "ChakraSessions", "ChakraContinuity",
            ]
        ),

        .executableTarget(
            name: "chakrad",
            dependencies: [
                "ChakraRaster", "ChakraMotion", "ChakraScenes", "ChakraPNG",
                "ChakraSystem", "ChakraDisplay", "ChakraDaemon", "ChakraConfig", "ChakraSpiral", "ChakraText", "ChakraInput", "ChakraControl", "CAllocator",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The control client: one subcommand per protocol command.
        // Its command line is read by its own small table (CommandSpec),
        // not swift-argument-parser: that library links FoundationEssentials,
        // 7.5 MB of a static binary that needs none of it.
        .executableTarget(
            name: "chakractl",
            dependencies: ["ChakraControl", "ChakraSystem"]
        ),

        // How the tests wait (for a descriptor, a reported state; never for
        // a guessed time), shared by the tests of the threads, sockets and
        // processes.
        .target(name: "ChakraTestSupport", path: "Tests/ChakraTestSupport"),
        .testTarget(name: "ChakraRasterTests", dependencies: ["ChakraRaster", "ChakraPNG"]),
        .testTarget(name: "ChakraMotionTests", dependencies: ["ChakraMotion"]),
        .testTarget(name: "ChakraScheduleTests", dependencies: ["ChakraSchedule", "ChakraSystem"]),
        .testTarget(name: "ChakraDisplayTests", dependencies: ["ChakraDisplay", "ChakraSystem", "ChakraRaster", "ChakraConfig"]),
        .testTarget(name: "ChakraDaemonTests", dependencies: ["ChakraTestSupport", "ChakraContinuity", "ChakraInput", "ChakraSystem", "ChakraDaemon", "ChakraDisplay", "ChakraScenes", "ChakraRaster", "ChakraConfig", "ChakraControl", "ChakraPNG", "ChakraSchedule", "ChakraSessions", "ChakraSpiral"]),
        .testTarget(name: "chakradTests", dependencies: ["chakrad", "ChakraSystem", "ChakraDaemon", "ChakraDisplay", "ChakraRaster", "ChakraConfig", "ChakraInput"]),
        .testTarget(name: "ChakraInputTests", dependencies: ["ChakraInput", "ChakraSystem", "ChakraRaster"]),
        .testTarget(name: "ChakraSessionsTests", dependencies: ["ChakraSessions", "ChakraSystem", "ChakraSchedule", "ChakraConfig"]),
        .testTarget(name: "ChakraContinuityTests", dependencies: ["ChakraContinuity", "ChakraSystem", "CLinuxKernel"]),
        .testTarget(name: "ChakraConfigTests", dependencies: ["ChakraTestSupport", "ChakraConfig", "ChakraControl", "ChakraSystem", "ChakraSchedule"], exclude: ["Fixtures"]),
        .testTarget(name: "ChakraControlTests", dependencies: ["ChakraTestSupport", "ChakraControl", "ChakraSystem", "ChakraControlServer", "ChakraPNG"]),
        .testTarget(name: "chakractlTests", dependencies: ["ChakraTestSupport", "chakractl", "ChakraSystem", "chakrad", "ChakraControl", "ChakraPNG", "ChakraDaemon", "ChakraSessions", "ChakraSchedule"]),
        .testTarget(name: "ChakraTextTests", dependencies: ["ChakraText", "ChakraRaster", "ChakraSystem"]),
        .testTarget(name: "ChakraSpiralTests", dependencies: ["ChakraSpiral", "ChakraText", "ChakraScenes", "ChakraRaster", "ChakraConfig", "ChakraPNG"]),
        // The Chromium references and parameter files are read by path (#filePath).
        .testTarget(name: "ChakraScenesTests", dependencies: ["ChakraScenes", "ChakraRaster", "ChakraMotion", "ChakraPNG"], exclude: ["Resources"]),
    ],
    swiftLanguageModes: [.v6]
)

// The renderer's tests alone (CHAKRA_TESTS=renderer): the modules a frame
// is made of (ChakraRaster, ChakraMotion, ChakraScenes, ChakraSpiral and
// what ChakraText needs) and their tests, without the daemon, the devices
// or swift-argument-parser. tests/arm64/unit-tests.sh builds this for
// aarch64 with Debian 13's Swift 6.0.3 and runs it under qemu-aarch64: the
// renderer's own checks on the other architecture, at a fraction of the
// whole package's build.
if Context.environment["CHAKRA_TESTS"] == "renderer" {
    let renderer: Set<String> = [
        "CPNG", "CFreeType", "CLinuxKernel", "CStreamStore", "CLanes",
        "ChakraSystem", "ChakraRaster", "ChakraMotion", "ChakraScenes", "ChakraText", "ChakraSpiral",
        "ChakraPNG", "ChakraConfig", "ChakraControl", "ChakraSchedule",
        "ChakraRasterTests", "ChakraMotionTests", "ChakraScenesTests", "ChakraSpiralTests", "ChakraTextTests",
    ]
    package.targets.removeAll { !renderer.contains($0.name) }
    package.products = []
    package.dependencies = []
}

// Fuzz targets (tests/fuzz): libFuzzer entry points, present only when
// tests/fuzz/run.sh builds them (CHAKRA_FUZZ=1, with --sanitize fuzzer and
// address); an ordinary build has no use for them and could not link them
// (libFuzzer supplies their main).
if Context.environment["CHAKRA_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependency: Target.Dependency)] = [
        ("fuzz-config", "ChakraConfig"),
        ("fuzz-catalog", "ChakraText"),
        ("fuzz-control", "ChakraControl"),
        ("fuzz-touch", "ChakraInput"),
        ("fuzz-cec", "ChakraDisplay"),
        ("fuzz-sessions", "ChakraSessions"),
        ("fuzz-continuation", "ChakraContinuity"),
        ("fuzz-listen", "ChakraSystem"),
    ]
    for (name, dependency) in fuzzTargets {
        package.targets.append(.executableTarget(name: name, dependencies: [dependency], path: "tests/fuzz/targets/\(name)"))
    }
}
