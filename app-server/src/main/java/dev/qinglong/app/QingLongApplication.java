package dev.qinglong.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/** The QingLong control plane: one Spring Boot application (a modular monolith). */
@SpringBootApplication
@ConfigurationPropertiesScan
public class QingLongApplication {
  public static void main(String[] args) {
    SpringApplication.run(QingLongApplication.class, args);
  }
}
