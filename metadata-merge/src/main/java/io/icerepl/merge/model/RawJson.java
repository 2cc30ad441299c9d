package io.icerepl.merge.model;

import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.SerializedString;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * JSON already encoded as UTF-8, written by a generator as it is ({@code writeRawValue}). Only the
 * unquoted forms are what a raw value needs; the quoted ones follow the interface's meaning.
 */
final class RawJson implements SerializableString {
  private final byte[] utf8;
  private final int offset;
  private final int length;

  RawJson(byte[] utf8) {
    this(utf8, 0, utf8.length);
  }

  /** A part of {@code utf8}: a snapshot's bytes are written around its mapped manifest list. */
  RawJson(byte[] utf8, int offset, int length) {
    this.utf8 = utf8;
    this.offset = offset;
    this.length = length;
  }

  @Override
  public String getValue() {
    return new String(utf8, offset, length, StandardCharsets.UTF_8);
  }

  @Override
  public int charLength() {
    return getValue().length();
  }

  @Override
  public char[] asQuotedChars() {
    return quoted().asQuotedChars();
  }

  @Override
  public byte[] asUnquotedUTF8() {
    // a generator only reads it: an entry too long for its buffer is written from here
    return offset == 0 && length == utf8.length
        ? utf8
        : Arrays.copyOfRange(utf8, offset, offset + length);
  }

  @Override
  public byte[] asQuotedUTF8() {
    return quoted().asQuotedUTF8();
  }

  @Override
  public int appendQuotedUTF8(byte[] buffer, int offset) {
    return quoted().appendQuotedUTF8(buffer, offset);
  }

  @Override
  public int appendQuoted(char[] buffer, int offset) {
    return quoted().appendQuoted(buffer, offset);
  }

  @Override
  public int appendUnquotedUTF8(byte[] buffer, int at) {
    if (at + length > buffer.length) {
      return -1;
    }
    System.arraycopy(utf8, offset, buffer, at, length);
    return length;
  }

  @Override
  public int appendUnquoted(char[] buffer, int offset) {
    return quoted().appendUnquoted(buffer, offset);
  }

  @Override
  public int writeQuotedUTF8(OutputStream out) throws IOException {
    return quoted().writeQuotedUTF8(out);
  }

  @Override
  public int writeUnquotedUTF8(OutputStream out) throws IOException {
    out.write(utf8, offset, length);
    return length;
  }

  @Override
  public int putQuotedUTF8(ByteBuffer buffer) throws IOException {
    return quoted().putQuotedUTF8(buffer);
  }

  @Override
  public int putUnquotedUTF8(ByteBuffer buffer) {
    if (buffer.remaining() < length) {
      return -1;
    }
    buffer.put(utf8, offset, length);
    return length;
  }

  private SerializedString quoted() {
    return new SerializedString(getValue());
  }
}
