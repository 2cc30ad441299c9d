package io.icerepl.merge.retention;

import java.io.IOException;
import java.io.InputStream;

/** Opens replica files for reading: passed in, so reachability stays free of I/O choices. */
@FunctionalInterface
public interface ManifestSource {
  InputStream open(String path) throws IOException;
}
