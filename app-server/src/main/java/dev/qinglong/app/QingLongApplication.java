package dev.qinglong.app;

import dev.qinglong.app.platform.MigrateCommand;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;

/**
 * The QingLong control plane: one Spring Boot application (a modular monolith). {@code java -jar
 * app.jar migrate [--property=value …]} runs only the migrate step ({@link MigrateCommand}) and
 * exits; without it the process serves its {@code qinglong.role}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class QingLongApplication {
  public static void main(String[] args) {
    if (args.length > 0 && MigrateCommand.NAME.equals(args[0])) {
      System.exit(MigrateCommand.run(Arrays.copyOfRange(args, 1, args.length)));
    }
    SpringApplication.run(QingLongApplication.class, args);
  }
}
