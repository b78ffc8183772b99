// SPDX-License-Identifier: Apache-2.0

import Foundation

/// SHA-256 (FIPS 180-4), incremental: what names the originals in a library by their content.
///
/// Foundation on Linux has no digest API and CryptoKit is Apple-only, so this small
/// implementation is the library's own; the tests check it against the FIPS 180-4 example
/// vectors. Cost: one pass over the bytes (≈ 0.2–0.4 GB/s optimised on one core).
public struct SHA256: Sendable {
  private var state: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) = (
    0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a,
    0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19
  )
  /// Bytes waiting for a full 64-byte block.
  private var pending: [UInt8] = []
  private var totalBytes: UInt64 = 0

  public init() { pending.reserveCapacity(64) }

  /// The digest of `data` as 64 lowercase hex digits.
  public static func hexDigest<D: DataProtocol>(_ data: D) -> String {
    var h = SHA256()
    h.update(data)
    return h.finalizeHex()
  }

  /// Adds bytes to the message.
  public mutating func update<D: DataProtocol>(_ data: D) {
    for region in data.regions {
      region.withUnsafeBytes { update(raw: $0) }
    }
  }

  private mutating func update(raw: UnsafeRawBufferPointer) {
    guard raw.count > 0, let base = raw.baseAddress else { return }
    totalBytes &+= UInt64(raw.count)
    var offset = 0
    if !pending.isEmpty {
      let take = min(64 - pending.count, raw.count)
      pending.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
      offset = take
      if pending.count == 64 {
        let block = pending
        block.withUnsafeBytes { compress($0.baseAddress!) }
        pending.removeAll(keepingCapacity: true)
      }
    }
    while raw.count - offset >= 64 {
      compress(base + offset)
      offset += 64
    }
    if offset < raw.count {
      pending.append(
        contentsOf: UnsafeRawBufferPointer(start: base + offset, count: raw.count - offset))
    }
  }

  /// Finishes the message and returns the 32-byte digest.
  public consuming func finalize() -> [UInt8] {
    let bitLength = totalBytes &* 8
    var tail = pending
    tail.append(0x80)
    while tail.count % 64 != 56 { tail.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) {
      tail.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
    }
    tail.withUnsafeBytes { buffer in
      var offset = 0
      while offset < buffer.count {
        compress(buffer.baseAddress! + offset)
        offset += 64
      }
    }
    let words = [state.0, state.1, state.2, state.3, state.4, state.5, state.6, state.7]
    return words.flatMap { w in
      (0..<4).map { UInt8(truncatingIfNeeded: w >> UInt32(24 - 8 * $0)) }
    }
  }

  /// Finishes the message and returns the digest as 64 lowercase hex digits.
  public consuming func finalizeHex() -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for b in finalize() {
      out.append(digits[Int(b >> 4)])
      out.append(digits[Int(b & 15)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  @inline(__always)
  private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

  /// One 64-byte block (FIPS 180-4 §6.2.2).
  private mutating func compress(_ block: UnsafeRawPointer) {
    withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
      for t in 0..<16 {
        w[t] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: t * 4, as: UInt32.self))
      }
      for t in 16..<64 {
        let s0 = Self.rotr(w[t - 15], 7) ^ Self.rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
        let s1 = Self.rotr(w[t - 2], 17) ^ Self.rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
        w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
      }
      var (a, b, c, d, e, f, g, h) = state
      Self.roundConstants.withUnsafeBufferPointer { k in
        for t in 0..<64 {
          let s1 = Self.rotr(e, 6) ^ Self.rotr(e, 11) ^ Self.rotr(e, 25)
          let ch = (e & f) ^ (~e & g)
          let t1 = h &+ s1 &+ ch &+ k[t] &+ w[t]
          let s0 = Self.rotr(a, 2) ^ Self.rotr(a, 13) ^ Self.rotr(a, 22)
          let maj = (a & b) ^ (a & c) ^ (b & c)
          let t2 = s0 &+ maj
          (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
        }
      }
      state = (
        state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d,
        state.4 &+ e, state.5 &+ f, state.6 &+ g, state.7 &+ h
      )
    }
  }

  /// The first 32 bits of the fractional parts of the cube roots of the first 64 primes.
  private static let roundConstants: [UInt32] = [
    0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5,
    0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
    0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3,
    0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
    0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc,
    0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
    0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7,
    0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
    0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13,
    0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
    0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3,
    0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
    0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5,
    0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
    0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208,
    0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
  ]
}
