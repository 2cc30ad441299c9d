package io.icerepl.lab.bench;

import com.azure.storage.blob.BlobContainerClient;
import com.azure.storage.blob.BlobServiceClient;
import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import io.icerepl.copier.azure.AzureAccess;
import io.icerepl.copier.azure.AzureObjectStore;
import io.icerepl.copier.gcs.GcsObjectStore;
import io.icerepl.copier.s3.S3Endpoint;
import io.icerepl.copier.s3.S3ObjectStore;
import io.icerepl.copier.s3.S3Resilience;
import io.icerepl.copier.s3.S3StoreSettings;
import io.icerepl.copier.store.LocalObjectStore;
import io.icerepl.copier.store.ObjectStore;
import io.icerepl.localstack.EmbeddedAzurite;
import io.icerepl.localstack.EmbeddedS3;
import io.icerepl.localstack.PreconditionEnforcingStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where a benchmark puts its replicas: local files, the embedded S3 (on disk), Azure Blob Storage
 * on Azurite ({@code abfss://} locations), or GCS on the in-process fake. Each started once per
 * benchmark; {@link #location} makes a fresh bucket or container per name, {@link #drop} deletes it
 * again.
 */
public final class BenchTarget implements AutoCloseable {
  /** The store family of a replica. */
  public enum Kind {
    LOCAL,
    S3,
    AZURE,
    GCS;

    public static Kind parse(String name) {
      try {
        return valueOf(name.trim().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "Unknown target " + name + ": it is one of local, s3, azure, gcs", e);
      }
    }

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  private final Kind kind;
  private final Path folder;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private EmbeddedS3 s3;
  private EmbeddedAzurite azurite;
  private BlobServiceClient blobs;
  private ObjectStore store;

  private BenchTarget(Kind kind, Path folder) {
    this.kind = kind;
    this.folder = folder;
  }

  /** Starts the target's emulator, if it has one, with its files under {@code folder}. */
  static BenchTarget start(Kind kind, Path folder) throws IOException {
    BenchTarget target = new BenchTarget(kind, Files.createDirectories(folder));
    switch (kind) {
      case LOCAL -> target.store = new LocalObjectStore();
      case S3 -> {
        target.s3 =
            target.closeLater(EmbeddedS3.start(Files.createDirectories(folder.resolve("s3")), 0));
        target.store = target.closeLater(s3Store(target.s3));
      }
      case AZURE -> {
        if (!EmbeddedAzurite.available()) {
          throw new IllegalStateException(
              "Azurite is not installed (.ci/run installs it with npm into local-stack/azurite,"
                  + " or AZURITE_BLOB names its azurite-blob command)");
        }
        target.azurite = target.closeLater(EmbeddedAzurite.start());
        target.store = target.closeLater(new AzureObjectStore(target.azureAccess()));
        target.blobs =
            new BlobServiceClientBuilder()
                .endpoint(target.azurite.endpoint())
                .credential(
                    new StorageSharedKeyCredential(
                        EmbeddedAzurite.ACCOUNT_NAME, EmbeddedAzurite.ACCOUNT_KEY))
                .buildClient();
      }
      case GCS ->
          target.store =
              target.closeLater(new GcsObjectStore(PreconditionEnforcingStorage.inProcess()));
    }
    return target;
  }

  /** A store on the embedded S3 as the service opens one per side. */
  static S3ObjectStore s3Store(EmbeddedS3 s3) {
    S3Endpoint endpoint =
        new S3Endpoint(
            Optional.of(s3.endpoint()),
            "us-east-1",
            Optional.of(EmbeddedS3.ACCESS_KEY),
            Optional.of(EmbeddedS3.SECRET_KEY),
            true);
    return S3ObjectStore.create(
        endpoint, S3StoreSettings.defaults("bench"), S3Resilience.defaults());
  }

  private <T extends AutoCloseable> T closeLater(T resource) {
    closing.add(0, resource);
    return resource;
  }

  Kind kind() {
    return kind;
  }

  /** The target's store; one for the whole benchmark. */
  ObjectStore store() {
    return store;
  }

  /** Access to Azurite's account at its endpoint (Azure only). */
  AzureAccess azureAccess() {
    return AzureAccess.sharedKey(EmbeddedAzurite.ACCOUNT_NAME, EmbeddedAzurite.ACCOUNT_KEY)
        .withEndpoint(azurite.endpoint());
  }

  /** Azurite's container {@code name} (Azure only). */
  BlobContainerClient container(String name) {
    return blobs.getBlobContainerClient(name);
  }

  /**
   * A fresh root for replicas named {@code name} (a lower-case name of letters, digits and dashes):
   * a folder, bucket or container of its own.
   */
  String location(String name) throws IOException {
    return switch (kind) {
      case LOCAL -> {
        String uri = Files.createDirectories(folder.resolve(name)).toUri().toString();
        yield uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
      }
      case S3 -> {
        s3.createBucket(name);
        yield "s3://" + name;
      }
      case AZURE -> {
        azurite.createContainer(name);
        yield "abfss://" + name + "@" + EmbeddedAzurite.ACCOUNT_NAME + ".dfs.core.windows.net";
      }
      case GCS -> "gs://" + name;
    };
  }

  /** Deletes what {@link #location}{@code (name)} holds, where that frees disk space. */
  void drop(String name) throws IOException {
    switch (kind) {
      case LOCAL -> deleteFolder(folder.resolve(name));
      case S3 -> deleteFolder(folder.resolve("s3").resolve(name));
      case AZURE -> container(name).delete();
      case GCS -> {
        // in memory: nothing on disk to free
      }
    }
  }

  /** Deletes a folder and everything in it, if it exists. */
  static void deleteFolder(Path folder) throws IOException {
    if (!Files.exists(folder)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(folder)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable resource : closing) {
      resource.close();
    }
  }
}
