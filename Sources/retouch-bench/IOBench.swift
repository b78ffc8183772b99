// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchEditor
import RetouchIO
import RetouchRender

/// `retouch-bench io`: the codec floor, previews and memory, beside libjpeg-turbo and libvips.
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
    }
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
