package dev.qinglong.app.platform;

import jakarta.validation.constraints.NotNull;
import java.nio.file.Path;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The process-wide {@code qinglong.*} properties (docs/operations.md#configuration). Each feature
 * binds its own {@code qinglong.<feature>.*} record; bad values refuse to start with a message
 * naming the property.
 *
 * <p>{@link OnRoleCondition} reads {@code qinglong.role} from the environment before this record is
 * bound (conditions run first).
 *
 * @param dataDir Directory of the SQLite file (qinglong.db), the dev tokens and the artifact
 *     storage root.
 * @param store Which store backs the ports: sqlite (embedded, default) or postgres.
 * @param role Process role: all, writer, reader or worker.
 * @param logFormat Console log format: text (default) or json (Elastic Common Schema, one object a
 *     line).
 */
@ConfigurationProperties("qinglong")
@Validated
public record PlatformProperties(
    @NotNull @DefaultValue("./data") Path dataDir,
    @NotNull @DefaultValue("sqlite") Store store,
    @NotNull @DefaultValue("all") Role role,
    @NotNull @DefaultValue("text") LogFormat logFormat) {}
