package dev.qinglong.core.modelquota;

/**
 * The current window of a Project read on the database clock: its usage, and the quota policy that
 * defines it ({@code null} if the Project has none: the window is then the unfenced day window).
 */
public record WindowUsageReading(WindowUsage usage, ProjectQuotaPolicy quota, long databaseNowMs) {}
