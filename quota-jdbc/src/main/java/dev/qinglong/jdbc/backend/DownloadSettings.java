package dev.qinglong.jdbc.backend;

/**
 * The download side of a process ({@code qinglong.downloads.*}, ADR 002), as plain values.
 *
 * @param shared {@code true}: fixed-share slot leases (PostgreSQL only); {@code false}: standalone
 * @param rateBytesPerSecond the total budget (shared: of all gateways); 0 = no limit
 * @param perPrincipalBytesPerSecond the per-principal budget (shared: in total); 0 = no limit
 * @param slots shared mode: the number of slots
 * @param slot shared mode: this process's slot
 */
public record DownloadSettings(
    boolean shared,
    long rateBytesPerSecond,
    long perPrincipalBytesPerSecond,
    int slots,
    int slot) {}
