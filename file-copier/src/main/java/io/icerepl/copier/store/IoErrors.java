package io.icerepl.copier.store;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;

/**
 * How an I/O error reads in a message. The JDK's file-system exceptions carry the reason in their
 * type and leave it out of the message ({@code AccessDeniedException}'s message is the path alone),
 * so every message built from one goes through {@link #describe} to say what went wrong.
 */
public final class IoErrors {
  private IoErrors() {}

  /**
   * {@code e} as {@code <file>: <reason>} for a file-system error (the reason its type stands for
   * when it carries none), else its message, else its type.
   */
  public static String describe(IOException e) {
    if (e instanceof FileSystemException fs) {
      String file = fs.getFile() == null ? "" : fs.getFile();
      String other = fs.getOtherFile() == null ? "" : " -> " + fs.getOtherFile();
      return file + other + (file.isEmpty() && other.isEmpty() ? "" : ": ") + reason(fs);
    }
    return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
  }

  /**
   * "Cannot {@code verb} {@code path}: <reason>", saying each once: a store's error that already
   * names this verb and path (S3's do) is the message as it is, and a file-system error about
   * {@code path} itself adds only its reason.
   */
  public static String cannot(String verb, String path, IOException e) {
    String prefix = "Cannot " + verb + " " + path;
    String described = describe(e);
    if (described.startsWith(prefix + ":")) {
      return described;
    }
    if (e instanceof FileSystemException fs
        && path.equals(fs.getFile())
        && fs.getOtherFile() == null) {
      return prefix + ": " + reason(fs);
    }
    return prefix + ": " + described;
  }

  private static String reason(FileSystemException e) {
    if (e.getReason() != null) {
      return e.getReason();
    }
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileAlreadyExistsException) {
      return "already exists";
    }
    if (e instanceof NotDirectoryException) {
      return "not a directory";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "directory not empty";
    }
    if (e instanceof NotLinkException) {
      return "not a symbolic link";
    }
    return e.getClass().getSimpleName();
  }
}
