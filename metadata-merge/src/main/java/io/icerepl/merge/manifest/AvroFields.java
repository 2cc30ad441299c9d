package io.icerepl.merge.manifest;

import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;

/** Field look-ups by name in a writer schema, tolerant of optional (nullable union) fields. */
final class AvroFields {
  static final int ABSENT = -1;

  private AvroFields() {}

  /** The position of a field, or {@link #ABSENT}. */
  static int position(Schema record, String name) {
    Schema.Field field = record.getField(name);
    return field == null ? ABSENT : field.pos();
  }

  /** The field's schema without a null branch, or null when the field is absent. */
  static Schema nonNullSchema(Schema record, String name) {
    Schema.Field field = record.getField(name);
    return field == null ? null : nonNull(field.schema());
  }

  /** The schema itself, or the single non-null branch of a union with null. */
  static Schema nonNull(Schema schema) {
    if (schema.getType() != Schema.Type.UNION) {
      return schema;
    }
    Schema found = null;
    for (Schema branch : schema.getTypes()) {
      if (branch.getType() != Schema.Type.NULL) {
        if (found != null) {
          return schema; // a real union: leave it to the caller to reject
        }
        found = branch;
      }
    }
    return found == null ? schema : found;
  }

  static Object get(GenericRecord record, int position) {
    return position == ABSENT ? null : record.get(position);
  }

  static String string(GenericRecord record, int position) {
    Object value = get(record, position);
    return value instanceof CharSequence chars ? chars.toString() : null;
  }

  static Number number(GenericRecord record, int position) {
    Object value = get(record, position);
    return value instanceof Number n ? n : null;
  }
}
