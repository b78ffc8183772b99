// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender
import RetouchTestSupport
import Testing

@testable import RetouchAI

/// Screenshots, pages (with a photograph in them too, or of dense text saved as JPEG),
/// spreadsheets, charts and flat illustrations are not photographs: the analysis says so
/// (``PictureKind/graphic``) and no correction is offered or applied, while photographs with
/// large flat areas (the moon in a black sky, a white minimal scene, their lifted, hazed and
/// crushed copies) stay photographs.
@Suite("Graphics")
struct GraphicTests {
  let engine = SuggestionEngine()

  /// A screen drawn as a browser draws one: flat fills, anti-aliased by coverage.
  struct Screen {
    let width: Int
    let height: Int
    var rgb: [Double]

    init(width: Int, height: Int, background: SIMD3<Double>) {
      self.width = width
      self.height = height
      rgb = Array(repeating: 0, count: width * height * 3)
      fill(x0: 0, y0: 0, x1: Double(width), y1: Double(height), background)
    }

    /// Paints the rectangle (pixel units, fractional edges) with `color`, each pixel mixed by
    /// the share of it the rectangle covers; what lies outside the screen is left out.
    mutating func fill(x0: Double, y0: Double, x1: Double, y1: Double, _ color: SIMD3<Double>) {
      let (left, right) = (max(0, Int(x0.rounded(.down))), min(width, Int(x1.rounded(.up))))
      let (top, bottom) = (max(0, Int(y0.rounded(.down))), min(height, Int(y1.rounded(.up))))
      guard left < right, top < bottom else { return }
      let (xs, ys) = (left..<right, top..<bottom)
      for y in ys {
        let cy = min(Double(y + 1), y1) - max(Double(y), y0)
        for x in xs {
          let cover = cy * (min(Double(x + 1), x1) - max(Double(x), x0))
          guard cover > 0 else { continue }
          let i = 3 * (y * width + x)
          for c in 0..<3 { rgb[i + c] += (color[c] - rgb[i + c]) * cover }
        }
      }
    }

    /// A line of made-up words between `left` and about `right`, letters `size` pixels high
    /// whose tops sit at `top`: each letter a stem and a bar or two, whole pixels wide and
    /// placed on whole pixels as a hinted font's are, the bars' ends partly covering a pixel.
    mutating func text(
      top: Double, left: Double, right: Double, size: Double, _ ink: SIMD3<Double>,
      rng: inout SeededRandom
    ) {
      let stroke = max(1, (size * 0.12).rounded())
      let bottom = (top + size).rounded()
      var x = left.rounded()
      while x < right - size * 4 {
        for _ in 0..<Int.random(in: 2...8, using: &rng) {
          let w = size * Double.random(in: 0.45...0.7, using: &rng)
          let y0 = (top + (Bool.random(using: &rng) ? 0 : size * 0.3)).rounded()
          fill(x0: x, y0: y0, x1: x + stroke, y1: bottom, ink)
          let bar = [y0, ((y0 + bottom) / 2).rounded(), bottom - stroke][
            Int.random(in: 0...2, using: &rng)]
          fill(x0: x, y0: bar, x1: x + w, y1: bar + stroke, ink)
          if Bool.random(using: &rng) {
            let stem = (x + w - stroke).rounded()
            fill(x0: stem, y0: y0, x1: stem + stroke, y1: bottom, ink)
          }
          x = (x + w + size * 0.25).rounded()
        }
        x = (x + size * 0.4).rounded()
      }
    }

    /// Paragraphs of `lineCount` lines of body text (10.6 px letters, 19 px apart, 16 px more
    /// between paragraphs) from `top` down to 30 pixels above the bottom, in a column about
    /// 1,000 pixels wide, each paragraph ending in a shorter line.
    mutating func paragraphs(
      from top: Double, lineCount: ClosedRange<Int>, _ ink: SIMD3<Double>,
      rng: inout SeededRandom
    ) {
      let bottom = Double(height - 30)
      var top = top
      while top < bottom {
        let lines = Int.random(in: lineCount, using: &rng)
        for line in 0..<lines where top < bottom {
          let end = line == lines - 1 ? Double.random(in: 300...900, using: &rng) : 1000
          text(top: top, left: 16, right: end, size: 10.6, ink, rng: &rng)
          top += 19
        }
        top += 16
      }
    }

    /// Copies `rows` of `picture` (all its columns) to the screen with their top-left corner at
    /// `x`, `y`.
    mutating func paste(_ picture: Image, rows: Range<Int>, x: Int, y: Int) {
      for (i, row) in rows.enumerated() where y + i < height {
        for col in 0..<min(picture.width, width - x) {
          let p = picture.pixel(x: col, y: row)
          let j = 3 * ((y + i) * width + x + col)
          for c in 0..<3 { rgb[j + c] = Double(p[c]) }
        }
      }
    }

    var image: Image {
      Image(
        width: width, height: height, format: .rgb8,
        bytes: rgb.map { UInt8(min(max($0, 0), 255).rounded()) })
    }
  }

  /// A page of paragraphs (1280 × 800, as a desktop browser shows one): a heading, then
  /// paragraphs of two to five lines in a column about 1,000 pixels wide, each ending in a
  /// shorter line.
  static func page(background: SIMD3<Double>, ink: SIMD3<Double>) -> Image {
    var screen = Screen(width: 1280, height: 800, background: background)
    var rng = SeededRandom(seed: 47)
    screen.text(top: 24, left: 16, right: 600, size: 22, ink, rng: &rng)
    screen.paragraphs(from: 80, lineCount: 2...5, ink, rng: &rng)
    return screen.image
  }

  /// A phone's settings screen (390 × 844): grey ground, white groups of rows with coloured
  /// icons and labels, and thin separators.
  static func settingsScreen() -> Image {
    var screen = Screen(width: 390, height: 844, background: [242, 242, 247])
    var rng = SeededRandom(seed: 7)
    screen.fill(x0: 0, y0: 0, x1: 390, y1: 60, [255, 255, 255])
    screen.text(top: 22, left: 16, right: 200, size: 17, [0, 0, 0], rng: &rng)
    let icons: [SIMD3<Double>] = [[255, 149, 0], [0, 122, 255], [52, 199, 89], [255, 59, 48]]
    var top = 90.0
    for group in 0..<3 {
      let rows = 3 + group % 2
      screen.fill(x0: 16, y0: top, x1: 374, y1: top + Double(rows) * 44, [255, 255, 255])
      for row in 0..<rows {
        let y = top + Double(row) * 44
        screen.fill(x0: 28, y0: y + 8, x1: 56, y1: y + 36, icons[(group + row) % icons.count])
        screen.text(top: y + 16, left: 70, right: 300, size: 12, [0, 0, 0], rng: &rng)
        if row < rows - 1 {
          screen.fill(x0: 70, y0: y + 43.5, x1: 374, y1: y + 44, [200, 200, 204])
        }
      }
      top += Double(rows) * 44 + 36
    }
    return screen.image
  }

  /// An article (1280 × 800): a heading, a byline, a photograph of dunes across the column
  /// (1248 × 420, cut from the middle of it) and paragraphs under it.
  static func article() throws -> Image {
    var screen = Screen(width: 1280, height: 800, background: [255, 255, 255])
    var rng = SeededRandom(seed: 12)
    screen.text(top: 20, left: 16, right: 700, size: 26, [34, 34, 34], rng: &rng)
    screen.text(top: 64, left: 16, right: 300, size: 10.6, [102, 102, 102], rng: &rng)
    var options = DecodeOptions()
    options.keeps16Bit = false
    let photo = try ImageDecoder(options: options).decode(SharedPhotos.url("d12")).image
      .resized(to: PixelSize(width: 1248, height: 780))
    screen.paste(photo, rows: 180..<600, x: 16, y: 92)
    screen.paragraphs(from: 530, lineCount: 3...3, [34, 34, 34], rng: &rng)
    return screen.image
  }

  /// A spreadsheet (1280 × 800): a grey grid of cells 112 × 23 pixels, a number in each.
  static func table() -> Image {
    var screen = Screen(width: 1280, height: 800, background: [255, 255, 255])
    var rng = SeededRandom(seed: 5)
    let grid: SIMD3<Double> = [208, 208, 208]
    for row in 0...34 {
      screen.fill(x0: 0, y0: Double(row * 23), x1: 1280, y1: Double(row * 23 + 1), grid)
    }
    for column in 0...11 {
      screen.fill(x0: Double(column * 112), y0: 0, x1: Double(column * 112 + 1), y1: 800, grid)
    }
    for row in 0..<34 {
      for column in 0..<11 {
        let left = Double(column * 112 + 14)
        let right = left + Double.random(in: 40...80, using: &rng)
        screen.text(
          top: Double(row * 23 + 7), left: left, right: right, size: 9.5, [0, 0, 0], rng: &rng)
      }
    }
    return screen.image
  }

  /// A code editor in a dark theme (1280 × 800): a line every 18 pixels, letters 9 pixels
  /// high, indented by 0–4 steps, each line a few runs of words in the theme's colours.
  static func codeEditor() -> Image {
    var screen = Screen(width: 1280, height: 800, background: [40, 44, 52])
    var rng = SeededRandom(seed: 48)
    let colors: [SIMD3<Double>] = [
      [171, 178, 191], [198, 120, 221], [97, 175, 239], [209, 154, 102], [152, 195, 121],
    ]
    for line in 0..<44 {
      var left = 8 + 32 * Double(Int.random(in: 0...4, using: &rng))
      for _ in 0..<Int.random(in: 1...4, using: &rng) {
        let right = left + Double.random(in: 50...220, using: &rng)
        let ink = colors[Int.random(in: 0..<colors.count, using: &rng)]
        screen.text(top: Double(8 + 18 * line), left: left, right: right, size: 9, ink, rng: &rng)
        left = right
      }
    }
    return screen.image
  }

  /// A page of small type in two columns (1920 × 1080): letters 8 pixels high on a line every
  /// 12 pixels, no gap between paragraphs.
  static func smallType() -> Image {
    var screen = Screen(width: 1920, height: 1080, background: [255, 255, 255])
    var rng = SeededRandom(seed: 11)
    for column in 0..<2 {
      let left = 12 + 960 * Double(column)
      for line in 0..<88 {
        let right = left + (line % 9 == 8 ? Double.random(in: 200...800, using: &rng) : 936)
        screen.text(
          top: Double(10 + 12 * line), left: left, right: right, size: 8, [17, 17, 17],
          rng: &rng)
      }
    }
    return screen.image
  }

  /// A line chart (1280 × 800): black axes with labels, three series in colour drawn as lines
  /// 2 pixels thick, a legend; nothing else on the white ground.
  static func lineChart() -> Image {
    var screen = Screen(width: 1280, height: 800, background: [255, 255, 255])
    var rng = SeededRandom(seed: 3)
    screen.fill(x0: 78, y0: 40, x1: 80, y1: 722, [0, 0, 0])
    screen.fill(x0: 78, y0: 720, x1: 1240, y1: 722, [0, 0, 0])
    for tick in 0..<8 {
      screen.text(
        top: Double(730), left: Double(90 + 150 * tick), right: Double(140 + 150 * tick), size: 9,
        [0, 0, 0], rng: &rng)
      screen.text(top: Double(60 + 90 * tick), left: 20, right: 70, size: 9, [0, 0, 0], rng: &rng)
    }
    let series: [SIMD3<Double>] = [[31, 119, 180], [255, 127, 14], [44, 160, 44]]
    for (i, color) in series.enumerated() {
      var y = Double(200 + 180 * i)
      for x in stride(from: 80.0, to: 1232, by: 8) {
        let next = min(700, max(60, y + Double.random(in: -18...18, using: &rng)))
        screen.fill(x0: x, y0: y, x1: x + 8, y1: y + 2, color)
        screen.fill(x0: x + 7, y0: min(y, next), x1: x + 9, y1: max(y, next) + 2, color)
        y = next
      }
      screen.fill(x0: 1060, y0: Double(56 + 20 * i), x1: 1090, y1: Double(58 + 20 * i), color)
      screen.text(
        top: Double(52 + 20 * i), left: 1100, right: 1180, size: 9, [0, 0, 0], rng: &rng)
    }
    return screen.image
  }

  /// The screens the tests use: a light page, the same page in dark mode, a settings screen,
  /// an article with a photograph across half of it, a spreadsheet, a code editor, a page of
  /// small type, a line chart.
  static func screen(_ index: Int) throws -> (name: String, image: Image) {
    switch index {
    case 0: ("light page", page(background: [255, 255, 255], ink: [34, 34, 34]))
    case 1: ("dark page", page(background: [18, 18, 18], ink: [232, 232, 232]))
    case 2: ("settings screen", settingsScreen())
    case 3: ("article", try article())
    case 4: ("spreadsheet", table())
    case 5: ("code editor", codeEditor())
    case 6: ("page of small type", smallType())
    default: ("line chart", lineChart())
    }
  }

  /// `image` after a JPEG round trip at `quality` (ringing around every edge).
  static func jpeg(_ image: Image, quality: Int) throws -> Image {
    var options = EncodeOptions()
    options.quality = quality
    let data = try ImageEncoder(options: options).encode(image, as: .jpeg)
    return try ImageDecoder().decode(data).image
  }

  @Test(
    "Screens are graphics and get no correction", arguments: [0, 1, 2, 3, 4, 5, 6, 7], [0, 70])
  func screensAreGraphics(_ index: Int, jpegQuality: Int) async throws {
    let (name, drawn) = try Self.screen(index)
    let image = jpegQuality > 0 ? try Self.jpeg(drawn, quality: jpegQuality) : drawn
    let label = jpegQuality > 0 ? "\(name), JPEG \(jpegQuality)" : name
    let analysis = engine.analysis(of: image)
    #expect(analysis.kind == .graphic, "\(label): \(String(describing: analysis.flatAreas))")
    let top = engine.topSuggestion(for: image)
    #expect(top == nil, "\(label) corrected unasked: \(String(describing: top))")
    #expect(engine.autoEdit(for: image) == nil, "\(label): retouch auto would edit it")
    let list = await engine.suggestions(
      for: image, options: .init(offerOriginal: true, thumbnailMaxDimension: 0))
    #expect(list.first?.lookID == SuggestionEngine.originalID, "\(label): \(list.map(\.lookID))")
    #expect(
      !list.contains { $0.kind == .correction }, "\(label): \(list.map(\.lookID))")
  }

  /// A reading round-trips through JSON; one stored before the ground was measured decodes
  /// with no ink (so only the older rules judge it).
  @Test func flatAreaReadingsDecode() throws {
    let reading = try #require(engine.analysis(of: Self.codeEditor()).flatAreas)
    #expect(reading.inkShare > 0 && reading.inkEdgeShare > 0)
    let json = try JSONEncoder().encode(reading)
    #expect(try JSONDecoder().decode(FlatAreaAnalysis.self, from: json) == reading)
    let fields = [
      "flatShare": 0.9, "texturedShare": 0, "flatColors": 1, "textBands": 0, "edgeShare": 0.9,
      "lineEdgeShare": 0,
    ]
    let older = try JSONEncoder().encode(fields)
    let decoded = try JSONDecoder().decode(FlatAreaAnalysis.self, from: older)
    #expect(decoded.flatShare == 0.9 && decoded.edgeShare == 0.9)
    #expect(decoded.inkShare == 0 && decoded.inkTexturedShare == 0 && decoded.inkEdgeShare == 0)
    #expect(!decoded.isGraphic)
  }

  /// A rendered disparity map (grey steps with sharp edges) is a graphic too.
  @Test func depthMapIsAGraphic() throws {
    let (image, metadata) = try AnalysisTestPhotos.load("d24")
    let analysis = PhotoAnalyzer().analyze(image, metadata: metadata, measureNoise: false)
    #expect(analysis.kind == .graphic, "\(String(describing: analysis.flatAreas))")
  }

  /// Blocks of flat colour drawn without anti-aliasing, each two pixels wide or more, leave
  /// no pixel between the flat areas: a QR-like code (black and white modules of 12 px) and
  /// pixel art (six colours in tiles of 16 px). Their boundaries are the edges; they are
  /// graphics, and nothing corrects them (the code had its white pulled down by Highlights
  /// and its black lifted, the pixel art its black point moved).
  @Test(arguments: [12, 16])
  func hardEdgedBlocksAreGraphics(block: Int) {
    var random = SeededRandom(seed: UInt64(block))
    let palette: [(UInt8, UInt8, UInt8)] =
      block == 12
      ? [(0, 0, 0), (255, 255, 255)]
      : [
        (20, 20, 30), (200, 60, 50), (240, 200, 80), (60, 140, 70), (70, 90, 200), (250, 250, 250),
      ]
    let (columns, rows) = (33, 27)
    let cells = (0..<(columns * rows)).map { _ in Int(random.next() % UInt64(palette.count)) }
    let image = AnalysisTestPhotos.synthetic(width: columns * block, height: rows * block) {
      x, y in palette[cells[(y / block) * columns + x / block]]
    }
    let analysis = engine.analysis(of: image)
    #expect(analysis.kind == .graphic, "\(String(describing: analysis.flatAreas))")
    #expect(analysis.flatAreas?.edgeShare == 1)
    let top = engine.topSuggestion(for: image)
    #expect(top == nil, "corrected unasked: \(String(describing: top))")
    #expect(engine.autoEdit(for: image) == nil)
  }

  /// `image` as the evaluation harness degrades it, in linear light: `gain` times each channel,
  /// then Koschmieder's haze `J·t + A·(1 − t)`, clipped; then, on the encoded values, a lifted
  /// black `b + (1 − b)·v` for a positive `black` or a crushed one `(v − |b|) / (1 − |b|)`,
  /// clipped, for a negative one.
  static func degraded(
    _ image: Image, gain: Double = 1, haze t: Double = 1, black b: Double = 0
  ) -> Image {
    AnalysisTestPhotos.synthetic(width: image.width, height: image.height) { x, y in
      let p = image.pixel(x: x, y: y)
      func channel(_ v: Int) -> UInt8 {
        let linear = min(1, SRGBTables.decodeExact(Double(v) / 255) * gain * t + 0.75 * (1 - t))
        let e = SRGBTables.encodeExact(linear)
        let encoded = b >= 0 ? b + (1 - b) * e : max(0, (e + b) / (1 + b))
        return UInt8((encoded * 255).rounded())
      }
      return (channel(p[0]), channel(p[1]), channel(p[2]))
    }
  }

  /// The flattest photographs of the shared set, and degraded copies of them that the
  /// harness makes flatter still, are not graphics: the moon in a black sky (also lifted and
  /// hazed, which turns its sky into one flat grey), an almost all-white minimal scene (also
  /// half a stop over, nearly all white), a severely underexposed room (also hazed), a casino
  /// (also hazed or crushed into its black, lit shapes with sharp edges on a flat ground), a
  /// welder and his sparks in the dark, crushed.
  @Test(
    arguments: [
      ("g70", 1.0, 1.0, 0.0), ("g70", 1, 1, 0.08), ("g70", 1, 1, 0.16), ("g70", 1, 0.55, 0),
      ("g45", 1, 1, 0), ("g45", 1.414, 1, 0), ("g89", 1, 1, 0), ("g89", 1, 0.75, 0),
      ("g89", 1, 0.55, 0), ("g66", 1, 1, 0), ("g66", 1, 0.75, 0), ("g66", 1, 0.55, 0),
      ("g66", 1, 1, -0.05), ("g66", 1, 1, -0.10), ("g30", 1, 1, -0.10),
    ])
  func flatPhotographsAreNotGraphics(
    _ id: String, gain: Double, haze: Double, black: Double
  ) throws {
    let (photo, metadata) = try AnalysisTestPhotos.load(id)
    let image = Self.degraded(photo, gain: gain, haze: haze, black: black)
    let analysis = PhotoAnalyzer().analyze(image, metadata: metadata, measureNoise: false)
    #expect(
      analysis.kind != .graphic,
      "\(id) ×\(gain) haze \(haze) black \(black): \(String(describing: analysis.flatAreas))")
  }
}
