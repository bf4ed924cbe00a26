package dev.qinglong.gateway.artifacts;

import dev.qinglong.core.kernel.Sha256Digest;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.util.Objects;

/**
 * An artifact opened for reading. The length is taken when the file is opened; stored files are
 * immutable (written once, moved atomically into place), so it stays true. Close it.
 */
public final class StoredArtifact implements Closeable {
  private final Sha256Digest digest;
  private final FileChannel channel;
  private final long length;

  StoredArtifact(Sha256Digest digest, FileChannel channel, long length) {
    this.digest = Objects.requireNonNull(digest, "digest");
    this.channel = Objects.requireNonNull(channel, "channel");
    this.length = length;
  }

  /** The content digest (also a strong ETag). */
  public Sha256Digest digest() {
    return digest;
  }

  /** The length in bytes. */
  public long length() {
    return length;
  }

  /** The open file, for zero-copy transfers; positioned reads do not disturb other readers. */
  public FileChannel channel() {
    return channel;
  }

  /**
   * A stream of {@code count} bytes from {@code offset} (a single HTTP range). Closing it does not
   * close this artifact.
   *
   * @throws IllegalArgumentException if the range is outside the artifact
   */
  public InputStream openRange(long offset, long count) {
    if (offset < 0 || count < 0 || offset > length || count > length - offset) {
      throw new IllegalArgumentException(
          "range " + offset + "+" + count + " is outside 0.." + length);
    }
    return new RangeStream(channel, offset, count);
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }

  private static final class RangeStream extends InputStream {
    private final FileChannel channel;
    private long position;
    private long remaining;

    RangeStream(FileChannel channel, long offset, long count) {
      this.channel = channel;
      this.position = offset;
      this.remaining = count;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) == -1 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      Objects.checkFromIndexSize(off, len, b.length);
      if (remaining == 0) {
        return -1;
      }
      if (len == 0) {
        return 0;
      }
      int want = (int) Math.min(len, remaining);
      // Positional reads: several ranges of one open artifact can be streamed concurrently.
      int n = channel.read(java.nio.ByteBuffer.wrap(b, off, want), position);
      if (n < 0) {
        throw new IOException("artifact shorter than its recorded length");
      }
      position += n;
      remaining -= n;
      return n;
    }

    @Override
    public long skip(long n) {
      long skipped = Math.max(0, Math.min(n, remaining));
      position += skipped;
      remaining -= skipped;
      return skipped;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, remaining);
    }
  }
}
