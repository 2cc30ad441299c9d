package io.icerepl.app.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The long-running replication service; {@code replicator serve} starts it. */
@SpringBootApplication
@EnableScheduling
public class ReplicatorApplication {

  public static void main(String[] args) {
    SpringApplication.run(ReplicatorApplication.class, args);
  }
}
