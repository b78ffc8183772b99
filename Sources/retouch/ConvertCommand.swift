// SPDX-License-Identifier: Apache-2.0

import Foundation
import RetouchCore
import RetouchIO
import RetouchRender

/// `retouch convert IN OUT [--quality Q] [--max-size PX] [--format jpeg|png|heic|avif|webp|tiff]
/// [--lossless]`, or
/// `retouch convert IN -o OUT …` like the other commands that write a photo.
enum ConvertCommand: Subcommand {
  static let spec = CommandSpec(
    name: "convert",
    abstract:
      "Convert a photo to JPEG, PNG, HEIC, AVIF, WebP or TIFF, upright and colour-managed, optionally smaller.",
    usage:
      "IN OUT | IN -o OUT [--quality Q] [--max-size PX] [--format jpeg|png|heic|avif|webp|tiff] [--lossless]",
    options: [
      .init(
        name: "output", value: "OUT", help: "Where to write the photo (instead of OUT).", short: "o"
      ),
      .init(name: "quality", value: "Q", help: "JPEG/HEIC/WebP quality 1…100 (default 90)."),
      .init(
        name: "max-size", value: "PX",
        help: "Longest edge of the output in pixels (shrinks on load)."),
      .init(
        name: "format", value: "FMT",
        help: "jpeg, png, heic, avif, webp or tiff (default: from OUT's extension, else jpeg)."),
      .init(name: "chroma", value: "444|420", help: "JPEG/HEIC chroma subsampling (default 420)."),
      .init(name: "progressive", value: nil, help: "Write a progressive JPEG."),
      .init(name: "lossless", value: nil, help: "Write a lossless WebP (every 8-bit value kept)."),
    ],
    positionals: 1...2,
    discussion: """
      The output carries the input's metadata corrected for the new image: orientation 1, the new
      pixel size, the new colour profile, the software tag; the EXIF thumbnail is dropped.
      The input file is never modified; OUT is written atomically.
      """)

  static func run(_ arguments: ParsedArguments) throws(CLIError) -> Int32 {
    let input = URL(fileURLWithPath: arguments.positionals[0])
    let outPath: String
    switch (arguments.positionals.count, arguments.value("output")) {
    case (2, nil): outPath = arguments.positionals[1]
    case (1, let o?): outPath = o
    case (2, _): throw CLIError.usage("'retouch convert' takes OUT or -o OUT, not both.")
    default: throw CLIError.usage("'retouch convert' needs an output: OUT or -o OUT.")
    }
    let output = URL(fileURLWithPath: outPath)
    let format = try outputFormat(arguments.value("format"), for: output)
    var encodeOptions = EncodeOptions()
    encodeOptions.quality = try arguments.int("quality", in: 1...100) ?? 90
    encodeOptions.progressive = arguments.flag("progressive")
    encodeOptions.webpLossless = arguments.flag("lossless")
    if encodeOptions.webpLossless, format != .webp {
      throw CLIError.usage("'--lossless' is for WebP output; write OUT.webp or add --format webp.")
    }
    switch arguments.value("chroma") {
    case nil, "420", "4:2:0": encodeOptions.chromaSubsampling = .s420
    case "444", "4:4:4": encodeOptions.chromaSubsampling = .s444
    case let other?: throw CLIError.usage("'--chroma' must be 420 or 444, got '\(other)'.")
    }
    let maxSize = try arguments.int("max-size", in: 1...65_500)
    try refuseOverwriting(input, with: output)

    if format == .jpeg, maxSize == nil,
      try ApplyCommand.streamJPEG(input, to: output, config: .neutral, options: encodeOptions)
    {
      return 0  // decoded and encoded overlapped, through a small ring of rows
    }
    var decodeOptions = DecodeOptions()
    decodeOptions.minimumLongEdge = maxSize
    let decoded: DecodedImage
    do {
      decoded = try ImageDecoder(options: decodeOptions).decode(input)
    } catch {
      throw CLIError(error)
    }
    ApplyCommand.warn(decoded.warnings, about: input)
    var image = decoded.image
    if let maxSize, image.size.longEdge > maxSize {
      image = image.resized(to: image.size.fitting(longEdge: maxSize))
    }
    do {
      try ImageEncoder(options: encodeOptions).write(
        image, as: format, metadata: decoded.metadata, to: output)
    } catch {
      throw CLIError(error)
    }
    return 0
  }

  /// The output format from `--format`, else OUT's extension, else JPEG.
  static func outputFormat(_ name: String?, for output: URL) throws(CLIError) -> ImageFormat {
    if let name {
      guard let format = ImageFormat(cliName: name) else {
        throw CLIError.usage(
          "'--format' must be jpeg, png, heic, avif, webp or tiff, got '\(name)'.")
      }
      return format
    }
    return ImageFormat(cliName: output.pathExtension) ?? .jpeg
  }

  /// Refuses an output path that is the input itself (the original is never modified).
  static func refuseOverwriting(_ input: URL, with output: URL) throws(CLIError) {
    let a = input.resolvingSymlinksInPath().standardizedFileURL.path
    let b = output.resolvingSymlinksInPath().standardizedFileURL.path
    if a == b {
      throw CLIError.usage(
        "the output would replace the input '\(input.lastPathComponent)'; choose another OUT.")
    }
  }
}

extension ImageFormat {
  /// The formats the CLI writes, by name or file extension (case-insensitive).
  init?(cliName: String) {
    switch cliName.lowercased() {
    case "jpeg", "jpg", "jpe": self = .jpeg
    case "png": self = .png
    case "heic", "heif", "hif": self = .heif
    case "avif": self = .avif
    case "webp": self = .webp
    case "tiff", "tif": self = .tiff
    default: return nil
    }
  }
}
