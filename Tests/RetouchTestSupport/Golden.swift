// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import Testing

/// Golden-image checks: compare a rendered image with a reviewed 16-bit PNG kept in a test
/// target's `Golden/` folder (see STYLE.md §6).
public enum Golden {
  /// Whether this run should (re-)record goldens: `RETOUCH_RECORD_GOLDENS=1` and not in CI.
  public static var recordingRequested: Bool {
    ProcessInfo.processInfo.environment["RETOUCH_RECORD_GOLDENS"] == "1"
  }

  /// Whether the run is in CI (`CI=true` or `CI=1`), where goldens are never recorded.
  public static var isCI: Bool {
    let v = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
    return v == "true" || v == "1"
  }

  /// Where failed comparisons leave expected, actual and diff images:
  /// `<package root>/.build/test-artifacts/`.
  public static let artifactsDirectory = packageRoot.appendingPathComponent(
    ".build/test-artifacts", isDirectory: true)

  /// The diff image: each component's absolute difference ×16 (so 1/16 of full scale shows
  /// white), and pixels over tolerance in full magenta.
  public static func diffImage(
    _ expected: Image, _ actual: Image, _ difference: ImageDifference,
    tolerance: ImageTolerance
  ) -> Image {
    let a = ImageDifference.values16(expected)
    let b = ImageDifference.values16(actual)
    let n = expected.format.channelCount
    var out = [UInt8]()
    out.reserveCapacity(expected.pixelCount * 6)
    for i in 0..<expected.pixelCount {
      let over =
        difference.deltaE[i] > tolerance.maxDeltaE2000
        || difference.channelDelta[i] > tolerance.maxChannelDelta
      for c in 0..<3 {
        let v: UInt16
        if over {
          v = c == 1 ? 0 : 65535
        } else {
          v = UInt16(min(abs(Int(a[i * n + c]) - Int(b[i * n + c])) * 16, 65535))
        }
        withUnsafeBytes(of: v) { out.append(contentsOf: $0) }
      }
    }
    return Image(width: expected.width, height: expected.height, format: .rgb16, bytes: out)
  }
}

/// Compares `image` (RGB, 8 or 16-bit) with the golden `Golden/<name>.png` of the calling test
/// target and records an issue when it differs by more than `tolerance`.
///
/// The golden is read from `bundle` (the test target's `Bundle.module`, which copies `Golden/`).
/// A missing golden fails. With `RETOUCH_RECORD_GOLDENS=1` the image is written to the source
/// tree instead (`Golden/` beside `filePath`) and the test fails saying so, so a recording run
/// never passes; with `CI=true` recording is refused. On a mismatch the issue gives the number
/// of pixels over tolerance, the largest ΔE2000 and channel difference, and the worst pixel's
/// position and values, and `<name>-expected.png`, `-actual.png` and `-diff.png` (16-bit) are
/// written to ``Golden/artifactsDirectory``.
public func expectMatchesGolden(
  _ image: Image, named name: String, tolerance: ImageTolerance, bundle: Bundle,
  filePath: StaticString = #filePath, sourceLocation: SourceLocation = #_sourceLocation
) {
  let rgb = image.format.hasAlpha ? dropAlpha(image) : image
  if Golden.recordingRequested {
    if Golden.isCI {
      Issue.record(
        "RETOUCH_RECORD_GOLDENS=1 is set in CI (CI=true): refusing to record golden \(name).",
        sourceLocation: sourceLocation)
      return
    }
    let target = URL(fileURLWithPath: "\(filePath)").deletingLastPathComponent()
      .appendingPathComponent("Golden/\(name).png")
    do {
      try GoldenPNG.write(rgb, to: target)
      Issue.record(
        """
        Recorded golden \(target.lastPathComponent) (\(rgb.size)); review it, then re-run \
        without RETOUCH_RECORD_GOLDENS.
        """,
        sourceLocation: sourceLocation)
    } catch {
      Issue.record("Could not record golden: \(error)", sourceLocation: sourceLocation)
    }
    return
  }
  guard let url = bundle.url(forResource: name, withExtension: "png", subdirectory: "Golden")
  else {
    Issue.record(
      "Missing golden Golden/\(name).png; record it with RETOUCH_RECORD_GOLDENS=1 and review it.",
      sourceLocation: sourceLocation)
    return
  }
  let expected: Image
  do {
    expected = try GoldenPNG.read(url, colorSpace: rgb.colorSpace)
  } catch {
    Issue.record("Unreadable golden: \(error)", sourceLocation: sourceLocation)
    return
  }
  if let failure = Golden.compare(rgb, expected: expected, named: name, tolerance: tolerance) {
    Issue.record(Comment(rawValue: failure), sourceLocation: sourceLocation)
  }
}

extension Golden {
  /// Compares `actual` with `expected` (the golden named `name`): nil when within `tolerance`,
  /// otherwise the failure message, after writing `<name>-expected.png`, `-actual.png` and
  /// `-diff.png` (16-bit) to `directory` (``artifactsDirectory`` by default).
  public static func compare(
    _ actual: Image, expected: Image, named name: String, tolerance: ImageTolerance,
    artifacts directory: URL = Golden.artifactsDirectory
  ) -> String? {
    let rgb = actual.format.hasAlpha ? dropAlpha(actual) : actual
    guard expected.size == rgb.size else {
      try? GoldenPNG.write(rgb, to: directory.appendingPathComponent("\(name)-actual.png"))
      return
        "Golden \(name) is \(expected.size), the image is \(rgb.size); actual written to "
        + "\(directory.path)."
    }
    let difference = ImageDifference(expected, rgb)
    guard !difference.isWithin(tolerance) else { return nil }
    let over = difference.overCount(tolerance)
    let w = difference.worstDeltaE
    let c = difference.worstChannel
    var written = "expected, actual and diff written to \(directory.path)"
    do {
      try GoldenPNG.write(expected, to: directory.appendingPathComponent("\(name)-expected.png"))
      try GoldenPNG.write(rgb, to: directory.appendingPathComponent("\(name)-actual.png"))
      try GoldenPNG.write(
        diffImage(expected, rgb, difference, tolerance: tolerance),
        to: directory.appendingPathComponent("\(name)-diff.png"))
    } catch {
      written = "could not write artifacts: \(error)"
    }
    let percent = String(format: "%.3f", 100 * Double(over) / Double(rgb.pixelCount))
    return """
      Golden \(name): \(over) of \(rgb.pixelCount) pixels (\(percent) %) over tolerance \
      (\(tolerance)). Max ΔE2000 \(String(format: "%.4f", difference.maxDeltaE)) at \
      (\(w.x), \(w.y)): expected \(expected.pixel(x: w.x, y: w.y)), actual \
      \(pixel16(rgb, w.x, w.y)); \
      max channel Δ \(difference.maxChannelDelta)/65535 at (\(c.x), \(c.y)): expected \
      \(expected.pixel(x: c.x, y: c.y)), actual \(pixel16(rgb, c.x, c.y)); mean ΔE2000 \
      \(String(format: "%.4f", difference.meanDeltaE)). \(written).
      """
  }
}

/// One pixel's components on the 16-bit scale.
private func pixel16(_ image: Image, _ x: Int, _ y: Int) -> [Int] {
  image.pixel(x: x, y: y).map { image.format.bitDepth == 8 ? $0 * 257 : $0 }
}

/// The RGB part of an RGBA image.
private func dropAlpha(_ image: Image) -> Image {
  let bpc = image.format.bytesPerComponent
  let bytes = image.withUnsafeBytes { raw -> [UInt8] in
    var out = [UInt8]()
    out.reserveCapacity(image.pixelCount * 3 * bpc)
    for i in 0..<image.pixelCount {
      out.append(contentsOf: raw[(i * 4 * bpc)..<(i * 4 * bpc + 3 * bpc)])
    }
    return out
  }
  return Image(
    width: image.width, height: image.height, format: image.format.withAlpha(false),
    colorSpace: image.colorSpace, bytes: bytes)
}

extension Image {
  /// The same image at 16 bits per component (each 8-bit value × 257, exact); 16-bit images are
  /// returned unchanged.
  public func widenedTo16Bit() -> Image {
    guard format.bitDepth == 8 else { return self }
    let bytes = withUnsafeBytes { raw -> [UInt8] in
      var out = [UInt8]()
      out.reserveCapacity(raw.count * 2)
      for b in raw { Swift.withUnsafeBytes(of: UInt16(b) * 257) { out.append(contentsOf: $0) } }
      return out
    }
    return Image(
      width: width, height: height, format: format.withBitDepth(16), colorSpace: colorSpace,
      bytes: bytes)
  }
}
