// SPDX-License-Identifier: Apache-2.0

import CRetouchShims
import Foundation

/// One libjpeg-turbo compressor, reached through the setjmp-safe C shim, for one encode.
///
/// Owns the C object and its output buffer and frees both in `deinit`. Every call turns a shim
/// failure into ``ImageEncodingError/Kind/encoderFailed`` with libjpeg's message. Not
/// `Sendable`: it lives and dies within one encode call.
final class JPEGCompressor {
  private let handle: OpaquePointer

  /// - Throws: ``ImageEncodingError/Kind/encoderFailed`` when memory is short.
  init() throws(ImageEncodingError) {
    guard let handle = rt_jpeg_encoder_create() else {
      throw ImageEncodingError(.encoderFailed, detail: "no memory to create a JPEG compressor.")
    }
    self.handle = handle
  }

  deinit { rt_jpeg_encoder_destroy(handle) }

  /// Sends the encoded bytes to the open file `descriptor` as they are produced instead of a
  /// memory buffer (before ``start(_:sizeHint:)``; finish with ``finishWritingFile()``).
  func write(toFileDescriptor descriptor: Int32) throws(ImageEncodingError) {
    try check(rt_jpeg_encoder_write_to_fd(handle, descriptor), while: "opening the output")
  }

  /// Sets the parameters and writes SOI (plus JFIF or Adobe markers, as the settings ask).
  /// `sizeHint` is the first output buffer's size in bytes; it grows as needed.
  func start(_ settings: rt_jpeg_encode_settings, sizeHint: Int) throws(ImageEncodingError) {
    var settings = settings
    try check(rt_jpeg_encoder_start(handle, &settings, max(sizeHint, 0)), while: "starting")
  }

  /// Writes one APPn segment (`payload` at most 65533 bytes).
  func writeMarker(code: Int, payload: Data) throws(ImageEncodingError) {
    let status = payload.withUnsafeBytes { bytes in
      rt_jpeg_encoder_write_marker(
        handle, Int32(code), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
        UInt32(bytes.count))
    }
    try check(status, while: "writing an APP\(code - 0xE0) segment")
  }

  /// Writes an ICC profile as APP2 chunks of at most 65519 bytes, numbered 1...N of N.
  func writeICCProfile(_ profile: Data) throws(ImageEncodingError) {
    let status = profile.withUnsafeBytes { bytes in
      rt_jpeg_encoder_write_icc(
        handle, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt32(bytes.count))
    }
    try check(status, while: "writing the ICC profile")
  }

  /// Compresses `count` rows starting at `rows`, `stride` bytes apart.
  func writeRows(_ rows: UnsafePointer<UInt8>, stride: Int, count: Int) throws(ImageEncodingError) {
    try check(
      rt_jpeg_encoder_write_rows(handle, rows, stride, UInt32(count)), while: "compressing rows")
  }

  /// Finishes the file and returns its bytes (one copy out of libjpeg's buffer).
  func finish() throws(ImageEncodingError) -> Data {
    var output: UnsafePointer<UInt8>? = nil
    var size = 0
    try check(rt_jpeg_encoder_finish(handle, &output, &size), while: "finishing")
    guard let output else {
      throw ImageEncodingError(.encoderFailed, detail: "libjpeg produced no output.")
    }
    return Data(bytes: output, count: size)
  }

  /// Finishes a file started with ``write(toFileDescriptor:)``; returns the bytes written.
  func finishWritingFile() throws(ImageEncodingError) -> Int {
    var output: UnsafePointer<UInt8>? = nil
    var size = 0
    try check(rt_jpeg_encoder_finish(handle, &output, &size), while: "finishing")
    return size
  }

  private func check(_ status: rt_jpeg_status, while stage: String) throws(ImageEncodingError) {
    guard status != RT_JPEG_OK else { return }
    let message = String(cString: rt_jpeg_encoder_error_message(handle))
    if status == RT_JPEG_WRITE_FAILED {
      throw ImageEncodingError(.unwritable, detail: "\(message).")
    }
    throw ImageEncodingError(.encoderFailed, detail: "libjpeg, \(stage): \(message).")
  }
}
