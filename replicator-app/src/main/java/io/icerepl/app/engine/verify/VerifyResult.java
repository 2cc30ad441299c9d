package io.icerepl.app.engine.verify;

/**
 * What a verification found.
 *
 * @param checked how many items were checked: files, paths, snapshots and refs
 * @param problems how many of them are wrong; the replica is proven complete only when 0
 */
public record VerifyResult(long checked, long problems) {}
