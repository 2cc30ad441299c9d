package io.icerepl.app.service;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The long-running replication service; {@code replicator serve} starts it. */
// No users and passwords: the API authenticates a bearer token (service.security).
@SpringBootApplication(exclude = UserDetailsServiceAutoConfiguration.class)
@EnableScheduling
public class ReplicatorApplication {

  public static void main(String[] args) {
    SpringApplication.run(ReplicatorApplication.class, args);
  }
}
