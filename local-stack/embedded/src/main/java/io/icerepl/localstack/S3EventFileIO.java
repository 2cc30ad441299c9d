package io.icerepl.localstack;

import java.io.IOException;
import java.net.URI;
import java.util.Map;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * An {@link S3FileIO} that sends the S3 event of each metadata file it writes to a queue, the
 * moment the object is written, as S3 event notifications do: before the writer's commit moves its
 * catalog's pointer to the file. The embedded S3 sends no events itself.
 *
 * <p>Set {@code io-impl} to this class, {@value #SQS_ENDPOINT} to the embedded SQS and {@value
 * #QUEUE_URL} to the queue.
 */
public class S3EventFileIO extends S3FileIO {
  public static final String SQS_ENDPOINT = "s3-events.sqs-endpoint";
  public static final String QUEUE_URL = "s3-events.queue-url";

  private transient SqsClient sqs;
  private String queueUrl;

  @Override
  public void initialize(Map<String, String> properties) {
    super.initialize(properties);
    queueUrl = properties.get(QUEUE_URL);
    sqs =
        SqsClient.builder()
            .endpointOverride(URI.create(properties.get(SQS_ENDPOINT)))
            .region(EmbeddedS3.REGION)
            .credentialsProvider(
                StaticCredentialsProvider.create(
                    AwsBasicCredentials.create(EmbeddedS3.ACCESS_KEY, EmbeddedS3.SECRET_KEY)))
            .build();
  }

  @Override
  public OutputFile newOutputFile(String path) {
    OutputFile file = super.newOutputFile(path);
    return path.endsWith(".metadata.json") ? new Notifying(file) : file;
  }

  /** The object at {@code location} (s3://bucket/key) was written: sends its event. */
  protected void created(String location) {
    URI uri = URI.create(location);
    String key = uri.getPath().substring(1);
    sqs.sendMessage(
        b ->
            b.queueUrl(queueUrl).messageBody(S3EventMessages.objectCreated(uri.getHost(), key, 1)));
  }

  @Override
  public void close() {
    super.close();
    if (sqs != null) {
      sqs.close();
    }
  }

  private final class Notifying implements OutputFile {
    private final OutputFile file;

    Notifying(OutputFile file) {
      this.file = file;
    }

    @Override
    public PositionOutputStream create() {
      return new Stream(file.create(), file.location());
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return new Stream(file.createOrOverwrite(), file.location());
    }

    @Override
    public String location() {
      return file.location();
    }

    @Override
    public InputFile toInputFile() {
      return file.toInputFile();
    }
  }

  private final class Stream extends PositionOutputStream {
    private final PositionOutputStream out;
    private final String location;
    private boolean closed;

    Stream(PositionOutputStream out, String location) {
      this.out = out;
      this.location = location;
    }

    @Override
    public long getPos() throws IOException {
      return out.getPos();
    }

    @Override
    public long storedLength() throws IOException {
      return out.storedLength();
    }

    @Override
    public void write(int b) throws IOException {
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      out.flush();
    }

    /** The object exists once its upload completes, on close. */
    @Override
    public void close() throws IOException {
      out.close();
      if (!closed) {
        closed = true;
        created(location);
      }
    }
  }
}
