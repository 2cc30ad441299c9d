package io.icerepl.app.engine.failover;

import io.icerepl.merge.failover.Promotion;
import io.icerepl.merge.model.TableMetadata;

/**
 * What a promotion did.
 *
 * @param promotion the promotion record
 * @param metadataFile the promoted version's metadata file
 * @param metadata its content
 * @param alreadyPromoted whether an earlier run had promoted the replica (this one at most finished
 *     its publish)
 */
public record PromotionResult(
    Promotion promotion, String metadataFile, TableMetadata metadata, boolean alreadyPromoted) {}
