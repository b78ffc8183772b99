// swift-tools-version: 6.1
// SPDX-License-Identifier: Apache-2.0

import PackageDescription

let package = Package(
  name: "Retouch",
  // Linux is where we build and test; on Apple systems the Synchronization module's Mutex needs
  // these versions.
  platforms: [.macOS(.v15), .iOS(.v18)],
  products: [
    .library(name: "RetouchCore", targets: ["RetouchCore"]),
    .library(name: "RetouchIO", targets: ["RetouchIO"]),
    .library(name: "RetouchRender", targets: ["RetouchRender"]),
    .library(name: "RetouchAI", targets: ["RetouchAI"]),
    .library(name: "RetouchEditor", targets: ["RetouchEditor"]),
    .library(name: "RetouchWeb", targets: ["RetouchWeb"]),
    .library(name: "RetouchLibrary", targets: ["RetouchLibrary"]),
    .executable(name: "retouch", targets: ["retouch"]),
    .executable(name: "retouch-bench", targets: ["retouch-bench"]),
  ],
  targets: [
    // MARK: C libraries (Debian -dev packages; scripts/setup.sh installs them)
    .systemLibrary(
      name: "CJPEGTurbo", pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
    .systemLibrary(
      name: "CPNG", pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
    .systemLibrary(
      name: "CLCMS2", pkgConfig: "lcms2",
      providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]),
    .systemLibrary(
      name: "CExif", pkgConfig: "libexif",
      providers: [.apt(["libexif-dev"]), .brew(["libexif"])]),
    .systemLibrary(
      name: "CDeflate", pkgConfig: "libdeflate",
      providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]),
    .systemLibrary(
      name: "CSQLite", pkgConfig: "sqlite3",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),

    // MARK: Our own thin C shims (the only place setjmp/longjmp and C macros are handled)
    .target(
      name: "CRetouchShims",
      dependencies: ["CJPEGTurbo", "CPNG", "CLCMS2", "CExif"],
      cSettings: [.unsafeFlags(["-O3"])]),

    // MARK: libheif, libmicrohttpd, libwebp and libtiff, loaded on first use (their -dev
    // packages): linked the usual way, the first two were a third of every command's start-up
    // (rt_loaders.h).
    .target(
      name: "CRetouchLoaders",
      cSettings: [
        .unsafeFlags(
          ["-I/opt/homebrew/include", "-I/usr/local/include"], .when(platforms: [.macOS]))
      ],
      linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),

    // MARK: Face detection: dlib's built-in HOG frontal face detector behind a small C ABI
    // (libdlib-dev, libblas-dev, liblapack-dev). Built for this CPU: dlib's HOG features and
    // filter scans are header templates compiled here, and -march=native makes them 1.5-2x faster.
    // On Linux dlib is linked from its static archive: the detector pulls a few of its objects,
    // while the shared library is loaded, relocated and initialised whole by every process that
    // links it, whether it detects a face or not (`retouch --version` 11.4 -> 9.8 ms, a 12 MP
    // `retouch apply` 138.2 -> 136.1 ms, medians of 90 and 30 alternating runs). dlib's headers
    // still call LAPACK (an SVD), so BLAS and LAPACK stay shared.
    .target(
      name: "CRetouchFaces",
      cxxSettings: [.unsafeFlags(["-O3", "-march=native"])],
      linkerSettings: [
        .unsafeFlags(["-Xlinker", "-l:libdlib.a"], .when(platforms: [.linux])),
        .linkedLibrary("dlib", .when(platforms: [.macOS])),
        .linkedLibrary("blas"), .linkedLibrary("lapack"),
        .linkedLibrary("pthread", .when(platforms: [.linux])),
      ]),

    // MARK: Hot pixel kernels in C, each where measured Swift stays more than 1.5x behind it (see
    // each kernel's doc comment and its Swift twin). Built for baseline x86-64: the vector code
    // carries its own target attributes and runs only where the CPU reports the features.
    .target(
      name: "CRetouchKernels",
      cSettings: [.unsafeFlags(["-O3"])]),

    // MARK: Benchmark only: a C reference of the fused colour pass, for retouch-bench's render
    // suite (compared with, never linked into a library or the CLI; built for this CPU).
    .target(
      name: "CRetouchBenchReference",
      cSettings: [.unsafeFlags(["-O3", "-march=native", "-fno-math-errno"])],
      linkerSettings: [.linkedLibrary("pthread", .when(platforms: [.linux]))]),

    // MARK: Swift modules, lowest layer first
    .target(
      name: "RetouchCore",
      swiftSettings: optimized),
    .target(
      name: "RetouchRender",
      dependencies: ["RetouchCore", "CRetouchKernels"],
      swiftSettings: optimized),
    .target(
      name: "RetouchIO",
      dependencies: [
        "RetouchCore", "CRetouchShims", "CRetouchLoaders", "CLCMS2", "CExif", "CPNG", "CDeflate",
      ],
      swiftSettings: optimized + loaderHeaders),

    .target(
      name: "RetouchAI",
      dependencies: ["RetouchCore", "RetouchIO", "RetouchRender", "CRetouchFaces"],
      swiftSettings: optimized),
    .target(
      name: "RetouchEditor",
      dependencies: ["RetouchCore", "RetouchIO", "RetouchRender", "RetouchAI"],
      swiftSettings: optimized),
    .target(
      name: "RetouchLibrary",
      dependencies: ["RetouchCore", "RetouchIO", "RetouchRender", "RetouchEditor", "CSQLite"],
      swiftSettings: optimized),

    // The web editor: HTTP server (libmicrohttpd), REST API and the browser front end, whose
    // files are compiled into the module (see WebAssets.swift for why).
    .target(
      name: "RetouchWeb",
      dependencies: [
        "RetouchCore", "RetouchIO", "RetouchRender", "RetouchEditor", "RetouchLibrary",
        "CRetouchLoaders",
      ],
      resources: webAssets.map { .embedInCode("Assets/\($0)") },
      swiftSettings: loaderHeaders),

    // MARK: Executables
    // The command line links the Swift runtime and Foundation statically on Linux: a one-shot
    // command otherwise spends about half its start in the dynamic loader resolving their
    // symbols (`retouch --version` 7.3-8.3 -> 3.7 ms; a 12 MP `retouch apply`, 30 alternating
    // runs, 120.5 -> 115.2 ms), for a larger file (15 -> 86 MB, mostly ICU's data).
    .executableTarget(
      name: "retouch",
      dependencies: [
        "RetouchCore", "RetouchIO", "RetouchRender", "RetouchAI", "RetouchEditor", "RetouchLibrary",
        "RetouchWeb",
      ],
      swiftSettings: optimized,
      linkerSettings: [
        .unsafeFlags(["-static-stdlib"], .when(platforms: [.linux])),
        // What the modules compiled without it do not name for the static Foundation.
        .linkedLibrary("CoreFoundation", .when(platforms: [.linux])),
        .linkedLibrary("_FoundationICU", .when(platforms: [.linux])),
        .linkedLibrary("_FoundationCShims", .when(platforms: [.linux])),
        .linkedLibrary("_FoundationCollections", .when(platforms: [.linux])),
      ]),
    .executableTarget(
      name: "retouch-bench",
      dependencies: [
        "RetouchCore", "RetouchIO", "RetouchRender", "RetouchAI", "RetouchEditor", "RetouchLibrary",
        "CRetouchBenchReference",
      ],
      swiftSettings: optimized),

    // MARK: Tests
    .target(
      name: "RetouchTestSupport",
      dependencies: ["RetouchCore", "CPNG"],
      path: "Tests/RetouchTestSupport"),
    .testTarget(
      name: "RetouchCoreTests",
      dependencies: ["RetouchCore", "RetouchTestSupport"]),
    .testTarget(
      name: "RetouchRenderTests",
      dependencies: ["RetouchRender", "RetouchCore", "RetouchIO", "RetouchTestSupport"],
      resources: [.copy("Golden")]),
    .testTarget(
      name: "RetouchIOTests",
      dependencies: [
        "RetouchIO", "RetouchCore", "RetouchTestSupport", "CRetouchShims", "CRetouchLoaders",
      ],
      resources: [.copy("Fixtures")], swiftSettings: loaderHeaders),
    .testTarget(
      name: "RetouchAITests",
      dependencies: [
        "RetouchAI", "RetouchRender", "RetouchIO", "RetouchCore", "RetouchTestSupport",
      ]),
    .testTarget(
      name: "RetouchEditorTests",
      dependencies: [
        "RetouchEditor", "RetouchRender", "RetouchIO", "RetouchCore", "RetouchTestSupport",
      ]),
    // Test helper: commits to a library in a loop so the crash test can kill it at any moment.
    .executableTarget(
      name: "retouch-library-stress",
      dependencies: ["RetouchLibrary", "RetouchEditor", "RetouchIO", "RetouchCore"],
      path: "Tests/RetouchLibraryStress"),
    .testTarget(
      name: "RetouchLibraryTests",
      dependencies: [
        "RetouchLibrary", "RetouchEditor", "RetouchRender", "RetouchIO", "RetouchCore",
        "RetouchTestSupport",
        "retouch-library-stress",
      ]),
    .testTarget(
      name: "RetouchWebTests",
      dependencies: [
        "RetouchWeb", "RetouchLibrary", "RetouchEditor", "RetouchAI", "RetouchRender", "RetouchIO",
        "RetouchCore", "RetouchTestSupport",
      ]),
    // Runs the built `retouch` binary (every build builds it). Not a dependency: a test bundle
    // links the executable targets it depends on, and with them the command's static Swift
    // runtime, which the test libraries cannot share.
    .testTarget(
      name: "retouchCLITests",
      dependencies: ["RetouchRender", "RetouchIO", "RetouchTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)

/// Settings for modules with hot pixel loops: tuned for the CPUs we ship on (x86-64-v3 class).
var optimized: [SwiftSetting] {
  [.unsafeFlags(["-target-cpu", "haswell"], .when(platforms: [.linux]))]
}

/// Where Swift modules importing `CRetouchLoaders` find the libheif and libmicrohttpd headers
/// its header includes: Homebrew's folders on macOS (Debian's are on the default path).
var loaderHeaders: [SwiftSetting] {
  [
    .unsafeFlags(
      ["-Xcc", "-I/opt/homebrew/include", "-Xcc", "-I/usr/local/include"],
      .when(platforms: [.macOS]))
  ]
}

/// The web editor's front-end files (Sources/RetouchWeb/Assets), each embedded in the binary.
var webAssets: [String] {
  [
    "index.html", "editor.html", "style.css", "favicon.svg",
    "api.js", "i18n.js", "icons.js", "library.js", "editor.js", "crop.js", "preview.js",
  ]
}
