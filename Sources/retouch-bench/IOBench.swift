// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender

/// `retouch-bench io`: the codec floor, previews and memory, beside libjpeg-turbo and libvips;
/// WebP beside libwebp's own tools; TIFF beside libtiff's tiffcp and libvips; AVIF beside
/// libavif's tools and libvips.
enum IOBench {
  static func run(options: BenchOptions) throws {
    let work = options.workDirectory
    let inputs = try options.jpegInputs()
    let retouch = options.retouchBinary
    for input in inputs {
      let data = try Data(contentsOf: input.url)
      let header = try ImageDecoder().readMetadata(data, source: input.url.lastPathComponent)
      let size = header.metadata.pixelSize ?? PixelSize(width: 0, height: 0)
      let mp = Double(size.pixelCount) / 1e6
      print(
        "\n# \(input.label): \(input.url.lastPathComponent), \(size) (\(String(format: "%.1f", mp)) MP), \(data.count / 1024) KB"
      )

      // 1. decode + encode q90 4:2:0, in memory and file to file.
      let ppm = work.appendingPathComponent("\(input.label).ppm").path
      if which("djpeg") != nil { try runProcess(["djpeg", "-outfile", ppm, input.url.path]) }
      var cases: [BenchCase] = [
        BenchCase(name: "decode+encode q90, in memory", owner: "Retouch") {
          let decoded = try ImageDecoder().decode(data)
          _ = try ImageEncoder().encode(decoded.image, as: .jpeg, metadata: decoded.metadata)
          return (nil, nil)
        }
      ]
      if try JPEGEditPipeline.render(data, source: "bench", config: .neutral) != nil {
        cases.append(
          BenchCase(name: "decode+encode q90, overlapped, in memory", owner: "Retouch") {
            _ = try JPEGEditPipeline.render(data, source: "bench", config: .neutral)
            return (nil, nil)
          })
      } else {
        print(
          "(the overlapped pipeline does not take this file: EXIF-rotated, CMYK or needing colour conversion)"
        )
      }
      if which("tjbench") != nil {
        cases.append(
          BenchCase(name: "tjbench decompress+compress q90", owner: "libjpeg-turbo") {
            let d = try tjbenchMilliseconds(
              ["tjbench", input.url.path, "-rgb"], pixels: size.pixelCount, column: .decompress,
              work: work)
            let c = try tjbenchMilliseconds(
              ["tjbench", ppm, "90", "-rgb", "-subsamp", "420", "-componly"],
              pixels: size.pixelCount, column: .compress, work: work)
            return (nil, d + c)
          })
      }
      let out1 = work.appendingPathComponent("\(input.label)-retouch.jpg").path
      cases.append(
        BenchCase(name: "file → file q90 (retouch convert)", owner: "Retouch") {
          (try runProcess([retouch, "convert", input.url.path, out1, "--quality", "90"]), nil)
        })
      if which("djpeg") != nil, which("cjpeg") != nil {
        let out2 = work.appendingPathComponent("\(input.label)-cjpeg.jpg").path
        cases.append(
          BenchCase(name: "file → file q90 (djpeg | cjpeg)", owner: "libjpeg-turbo") {
            (
              try runProcess([
                "sh", "-c", "djpeg '\(input.url.path)' | cjpeg -quality 90 -sample 2x2 > '\(out2)'",
              ]), nil
            )
          })
      }
      let codec = try roundRobin(cases, runs: options.runs)
      printTable(
        "decode + encode q90 4:2:0 (\(input.label))", codec,
        reference: "tjbench decompress+compress q90",
        note:
          "threads: Retouch codec 1 (libjpeg is single-threaded; \"overlapped\" decodes and encodes on two threads at once, as retouch convert does for JPEG → JPEG), tjbench 1, djpeg | cjpeg 2 processes. Goal: in-memory ≤ 1.10× tjbench."
      )
      if let ours = codec.first(where: { $0.name.hasPrefix("file → file q90 (retouch") }),
        let theirs = codec.first(where: { $0.name.hasPrefix("file → file q90 (djpeg") })
      {
        print(
          String(
            format: "file → file: retouch convert / (djpeg | cjpeg) = %.2f×",
            ours.samples.median / theirs.samples.median))
      }
      let rgbBytes = size.pixelCount * 3
      if let rss = codec.first(where: { $0.name.hasPrefix("file → file q90 (retouch") })?.peakRSS {
        print(
          String(
            format:
              "peak memory of retouch convert: %.1f MB = %.2f× the 8-bit RGB image (%.1f MB); goal ≤ 2.5×",
            Double(rss) / 1_048_576, Double(rss) / Double(rgbBytes), Double(rgbBytes) / 1_048_576))
      }

      // 2. 1080-px preview (shrink-on-load + resample), process to process and in memory.
      var previews: [BenchCase] = []
      let ourPreview = work.appendingPathComponent("\(input.label)-preview-retouch.jpg").path
      let vipsPreview = work.appendingPathComponent("\(input.label)-preview-vips.jpg").path
      previews.append(
        BenchCase(name: "1080-px preview in memory", owner: "Retouch") {
          var o = DecodeOptions()
          o.minimumLongEdge = 1080
          let decoded = try ImageDecoder(options: o).decode(data)
          let small = decoded.image.resized(to: decoded.image.size.fitting(longEdge: 1080))
          _ = try ImageEncoder().encode(small, as: .jpeg, metadata: decoded.metadata)
          return (nil, nil)
        })
      previews.append(
        BenchCase(name: "1080-px preview (retouch convert)", owner: "Retouch") {
          (
            try runProcess([retouch, "convert", input.url.path, ourPreview, "--max-size", "1080"]),
            nil
          )
        })
      if which("vipsthumbnail") != nil {
        previews.append(
          BenchCase(name: "vipsthumbnail -s 1080", owner: "libvips") {
            (
              try runProcess([
                "vipsthumbnail", "-s", "1080", input.url.path, "-o", vipsPreview + "[Q=90]",
              ]), nil
            )
          })
      }
      let previewResults = try roundRobin(previews, runs: options.runs)
      printTable(
        "1080-px preview (\(input.label))", previewResults, reference: "vipsthumbnail -s 1080",
        note: "threads: Retouch 2 (resampling), vipsthumbnail default. Goal: ≤ 0.5× vipsthumbnail.")
      if FileManager.default.fileExists(atPath: vipsPreview) {
        let a = try sharpness(of: URL(fileURLWithPath: ourPreview))
        let b = try sharpness(of: URL(fileURLWithPath: vipsPreview))
        print(
          String(
            format:
              "sharpness (mean |Laplacian| of luma, 8-bit units): Retouch %.2f, vipsthumbnail %.2f (ratio %.2f)",
            a, b, a / b))
      }

      // 3. WebP: decode and encode in memory, beside libwebp's tools.
      try webp(data, label: input.label, runs: options.runs, work: work)

      // 4. TIFF (Deflate with predictor), in memory and file to file, beside tiffcp and vips.
      try tiff(data, label: input.label, runs: options.runs, work: work, retouch: retouch)

      // 5. AVIF (AV1 at quality 90, 4:2:0), in memory and file to file, beside libavif's
      // tools and vips.
      try avif(
        data, file: input.url.path, label: input.label, runs: options.runs, work: work,
        retouch: retouch)
    }
  }

  /// AVIF decoding and encoding in memory, and JPEG → AVIF file to file beside libavif's
  /// `avifenc` and libvips' `vips copy` set to the same AV1 encoding: libaom at speed 7 on 2
  /// threads, constant quality level 6 (what libheif makes of quality 90), 4:2:0. Decoding beside
  /// `avifdec` (dav1d) writing raw YUV, and `vips copy` to its own format.
  static func avif(
    _ data: Data, file: String, label: String, runs: Int, work: URL, retouch: String
  ) throws {
    let decoded = try ImageDecoder().decode(data)
    let avif = try ImageEncoder().encode(decoded.image, as: .avif, metadata: decoded.metadata)
    let avifFile = work.appendingPathComponent("\(label).avif").path
    try avif.write(to: URL(fileURLWithPath: avifFile))
    let out = { (name: String) in work.appendingPathComponent("\(label)-\(name)").path }
    var cases = [
      BenchCase(name: "AVIF decode, in memory", owner: "Retouch") {
        _ = try ImageDecoder().decode(avif)
        return (nil, nil)
      },
      BenchCase(name: "AVIF encode q90, in memory", owner: "Retouch") {
        _ = try ImageEncoder().encode(decoded.image, as: .avif, metadata: decoded.metadata)
        return (nil, nil)
      },
      BenchCase(name: "JPEG → AVIF (retouch convert)", owner: "Retouch") {
        (try runProcess([retouch, "convert", file, out("retouch.avif")]), nil)
      },
    ]
    if which("avifenc") != nil, which("avifdec") != nil {
      cases.append(
        BenchCase(name: "JPEG → AVIF (avifenc)", owner: "libavif") {
          (
            try runProcess([
              "avifenc", "-s", "\(HEIFCodec.av1Speed)", "-j", "2", "-y", "420", "--min", "0",
              "--max", "63", "-a", "end-usage=q", "-a", "cq-level=6", file, out("avifenc.avif"),
            ]), nil
          )
        })
      cases.append(
        BenchCase(name: "AVIF → raw YUV (avifdec)", owner: "libavif") {
          (try runProcess(["avifdec", "-j", "2", avifFile, out("avifdec.y4m")]), nil)
        })
    } else {
      print("(avifenc and avifdec not found: scripts/bench-setup.sh installs libavif-bin)")
    }
    if which("vips") != nil {
      cases.append(
        BenchCase(name: "JPEG → AVIF (vips copy)", owner: "libvips") {
          (
            try runProcess([
              "vips", "copy", file,
              out("vips.avif")
                + "[compression=av1,Q=90,effort=\(9 - HEIFCodec.av1Speed),subsample-mode=on]",
            ]), nil
          )
        })
      cases.append(
        BenchCase(name: "AVIF → vips format (vips copy)", owner: "libvips") {
          (try runProcess(["vips", "copy", avifFile, out("vips.v")]), nil)
        })
    }
    let results = try roundRobin(cases, runs: runs)
    printTable(
      "AVIF, AV1 q90 4:2:0 (\(label), \(avif.count / 1024) KB as AVIF)", results,
      reference: "JPEG → AVIF (avifenc)",
      note:
        "threads: libaom 2 in every encoder; decoding dav1d (Retouch through libheif, avifdec "
        + "-j 2, vips through libheif). Retouch's decode includes YUV → RGB and colour "
        + "management; avifdec's writes YUV as it is.")
    for name in ["retouch.avif", "avifenc.avif", "vips.avif"] {
      if let size = try? FileManager.default.attributesOfItem(atPath: out(name))[.size] as? Int {
        print("output \(name): \(size / 1024) KB")
      }
    }
    printRatios(
      results,
      [
        ("JPEG → AVIF (retouch convert)", "JPEG → AVIF (avifenc)"),
        ("JPEG → AVIF (retouch convert)", "JPEG → AVIF (vips copy)"),
      ])
  }

  /// Prints `ours / theirs = r×` (ratio of medians) for each pair whose cases both ran.
  static func printRatios(_ results: [BenchResult], _ pairs: [(ours: String, theirs: String)]) {
    for (ours, theirs) in pairs {
      if let a = results.first(where: { $0.name == ours }),
        let b = results.first(where: { $0.name == theirs })
      {
        print(String(format: "%@ / %@ = %.2f×", ours, theirs, a.samples.median / b.samples.median))
      }
    }
  }

  /// TIFF decoding and encoding of the photo as an 8-bit Deflate TIFF with the horizontal
  /// predictor, in memory, and file to file (TIFF in, TIFF out) beside libtiff's `tiffcp` and
  /// libvips' `vips copy` writing the same kind of file.
  static func tiff(_ data: Data, label: String, runs: Int, work: URL, retouch: String) throws {
    let image = try ImageDecoder().decode(data).image
    let tiff = try ImageEncoder().encode(image, as: .tiff)
    let file = work.appendingPathComponent("\(label).tif").path
    try tiff.write(to: URL(fileURLWithPath: file))
    let outputs = (
      retouch: work.appendingPathComponent("\(label)-retouch.tif").path,
      tiffcp: work.appendingPathComponent("\(label)-tiffcp.tif").path,
      vips: work.appendingPathComponent("\(label)-vips.tif").path
    )
    var cases = [
      BenchCase(name: "TIFF decode, in memory", owner: "Retouch") {
        _ = try ImageDecoder().decode(tiff)
        return (nil, nil)
      },
      BenchCase(name: "TIFF encode, in memory", owner: "Retouch") {
        _ = try ImageEncoder().encode(image, as: .tiff)
        return (nil, nil)
      },
      BenchCase(name: "file → file (retouch convert)", owner: "Retouch") {
        (try runProcess([retouch, "convert", file, outputs.retouch]), nil)
      },
    ]
    if which("tiffcp") != nil {
      cases.append(
        BenchCase(name: "file → file (tiffcp -c zip:p2)", owner: "libtiff") {
          (try runProcess(["tiffcp", "-c", "zip:p2", file, outputs.tiffcp]), nil)
        })
    } else {
      print("(tiffcp not found: scripts/bench-setup.sh installs libtiff-tools)")
    }
    if which("vips") != nil {
      cases.append(
        BenchCase(name: "file → file (vips copy, deflate+predictor)", owner: "libvips") {
          (
            try runProcess([
              "vips", "copy", file, outputs.vips + "[compression=deflate,predictor=horizontal]",
            ]), nil
          )
        })
    }
    let results = try roundRobin(cases, runs: runs)
    printTable(
      "TIFF, 8-bit RGB, Deflate + horizontal predictor (\(label), \(tiff.count / 1024) KB)",
      results, reference: "file → file (tiffcp -c zip:p2)",
      note:
        "threads: Retouch decode 1 (libtiff), encode 2 (strips compressed in parallel), "
        + "convert 2; tiffcp 1; vips default. All at Deflate level 6 (each tool's default).")
    for (name, path) in [
      ("retouch", outputs.retouch), ("tiffcp", outputs.tiffcp), ("vips", outputs.vips),
    ] {
      if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int {
        print("output of \(name): \(size / 1024) KB")
      }
    }
    if let a = results.first(where: { $0.name == "file → file (retouch convert)" }),
      let b = results.first(where: { $0.name == "file → file (tiffcp -c zip:p2)" })
    {
      print(String(format: "retouch convert / tiffcp = %.2f×", a.samples.median / b.samples.median))
    }
  }

  /// WebP decoding and encoding (lossy, q90) in memory, beside the times libwebp's own tools
  /// report for the same work (dwebp and cwebp with `-v`, which time the library call alone).
  static func webp(_ data: Data, label: String, runs: Int, work: URL) throws {
    let decoded = try ImageDecoder().decode(data)
    let image = decoded.image
    let webp = try ImageEncoder().encode(image, as: .webp)
    let file = work.appendingPathComponent("\(label).webp")
    try webp.write(to: file)
    let ppm = work.appendingPathComponent("\(label)-webp.ppm").path
    var cases = [
      BenchCase(name: "WebP decode, in memory", owner: "Retouch") {
        _ = try ImageDecoder().decode(webp)
        return (nil, nil)
      },
      BenchCase(name: "WebP encode q90, in memory", owner: "Retouch") {
        _ = try ImageEncoder().encode(image, as: .webp)
        return (nil, nil)
      },
    ]
    if which("dwebp") != nil, which("cwebp") != nil {
      try runProcess(["dwebp", file.path, "-ppm", "-o", ppm])
      let report = work.appendingPathComponent("webp-tool.txt").path
      cases.append(
        BenchCase(name: "dwebp (decode time it reports)", owner: "libwebp") {
          try runProcess(
            ["sh", "-c", "dwebp -v '\(file.path)' -ppm -o /dev/null 2>&1"], stdoutPath: report)
          return (nil, try reportedSeconds(report, "Time to decode picture:") * 1000)
        })
      cases.append(
        BenchCase(name: "cwebp -q 90 (encode time it reports)", owner: "libwebp") {
          try runProcess(
            ["sh", "-c", "cwebp -v -q 90 '\(ppm)' -o /dev/null 2>&1"], stdoutPath: report)
          return (nil, try reportedSeconds(report, "Time to encode picture:") * 1000)
        })
    } else {
      print("(dwebp and cwebp not found: scripts/bench-setup.sh installs them)")
    }
    let results = try roundRobin(cases, runs: runs)
    printTable(
      "WebP decode and encode q90 (\(label), \(webp.count / 1024) KB as WebP)", results,
      reference: "dwebp (decode time it reports)",
      note:
        "threads: Retouch 1 (libwebp's, plus colour management and metadata), dwebp and cwebp 1; "
        + "the tools' figures are their own timers (millisecond steps) around the library call.")
    printRatios(
      results,
      [
        ("WebP decode, in memory", "dwebp (decode time it reports)"),
        ("WebP encode q90, in memory", "cwebp -q 90 (encode time it reports)"),
      ])
  }

  /// The seconds a tool printed after `label` in the file at `path`.
  static func reportedSeconds(_ path: String, _ label: String) throws -> Double {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(label) }),
      let seconds = Double(
        line.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
          .trimmingCharacters(in: CharacterSet(charactersIn: "s")))
    else {
      throw BenchError(description: "no '\(label)' in: \(text.prefix(200))")
    }
    return seconds
  }

  enum TJColumn { case compress, decompress }

  /// Runs tjbench briefly and converts its Mpixels/s figure to milliseconds for one image.
  static func tjbenchMilliseconds(_ argv: [String], pixels: Int, column: TJColumn, work: URL) throws
    -> Double
  {
    let out = work.appendingPathComponent("tjbench.txt").path
    try runProcess(
      argv + ["-quiet", "-benchtime", "0.5", "-warmup", "0.2", "-nowrite"], stdoutPath: out)
    let text = try String(contentsOfFile: out, encoding: .utf8)
    // Last table row: ... CompPerf CompRatio DecompPerf (N/A where not measured).
    guard let row = text.split(separator: "\n").last(where: { $0.hasPrefix("RGB") }) else {
      throw BenchError(description: "unexpected tjbench output: \(text.prefix(200))")
    }
    let fields = row.split(separator: " ").map(String.init)
    let perf = column == .decompress ? fields.last : fields.dropLast(2).last
    guard let p = perf.flatMap(Double.init), p > 0 else {
      throw BenchError(description: "no tjbench figure in: \(row)")
    }
    return Double(pixels) / (p * 1e6) * 1000
  }

  /// Mean absolute 4-neighbour Laplacian of the luma of a decoded file: a simple, comparable
  /// sharpness figure for two resamplers' outputs of the same size.
  static func sharpness(of url: URL) throws -> Double {
    let image = try ImageDecoder().decode(url).image
    let w = image.width, h = image.height, n = image.format.channelCount
    guard image.format.bitDepth == 8, w > 2, h > 2 else { return 0 }
    return image.withUnsafeBytes { raw -> Double in
      let p = raw.bindMemory(to: UInt8.self)
      func luma(_ x: Int, _ y: Int) -> Double {
        let o = (y * w + x) * n
        return 0.2126 * Double(p[o]) + 0.7152 * Double(p[o + 1]) + 0.0722 * Double(p[o + 2])
      }
      var sum = 0.0
      for y in 1..<(h - 1) {
        for x in 1..<(w - 1) {
          sum += abs(
            4 * luma(x, y) - luma(x - 1, y) - luma(x + 1, y) - luma(x, y - 1) - luma(x, y + 1))
        }
      }
      return sum / Double((w - 2) * (h - 2))
    }
  }
}
