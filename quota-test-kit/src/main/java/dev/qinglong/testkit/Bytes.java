package dev.qinglong.testkit;

/** Byte-array helpers of the test kit. */
public final class Bytes {
  private Bytes() {}

  /** The first index of {@code needle} in {@code haystack}, or -1. */
  public static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
