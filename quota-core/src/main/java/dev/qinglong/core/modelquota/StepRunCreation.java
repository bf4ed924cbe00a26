package dev.qinglong.core.modelquota;

/** A StepRun as stored, and whether this call created it (false: its id already existed). */
public record StepRunCreation(StepRun stepRun, boolean created) {}
