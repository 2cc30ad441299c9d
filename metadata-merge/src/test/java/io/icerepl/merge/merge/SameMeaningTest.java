package io.icerepl.merge.merge;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.icerepl.merge.model.TableMetadataParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Same-id schemas, specs and orders: spelling differences pass, meaning differences do not. */
class SameMeaningTest {
  /** As the Java library writes it. */
  private static final String JAVA_SCHEMA =
      """
      {"type":"struct","schema-id":1,"fields":[
        {"id":1,"name":"id","required":true,"type":"long"},
        {"id":2,"name":"price","required":false,"type":"decimal(9, 2)","doc":"in euros"},
        {"id":3,"name":"tags","required":false,"type":{"type":"list","element-id":4,"element":"string","element-required":false}},
        {"id":5,"name":"attrs","required":false,"type":{"type":"map","key-id":6,"key":"string","value-id":7,"value":{"type":"struct","fields":[{"id":8,"name":"v","required":false,"type":"int"}]},"value-required":false}}]}
      """;

  /** The same schema as PyIceberg writes it: other key order, empty identifier-field-ids. */
  private static final String PYICEBERG_SCHEMA =
      """
      {"type":"struct","fields":[
        {"id":1,"name":"id","type":"long","required":true},
        {"id":2,"name":"price","type":"decimal(9,2)","required":false,"doc":"in euros"},
        {"id":3,"name":"tags","type":{"type":"list","element-id":4,"element":"string","element-required":false},"required":false},
        {"id":5,"name":"attrs","type":{"type":"map","key-id":6,"key":"string","value-id":7,"value":{"type":"struct","fields":[{"id":8,"name":"v","type":"int","required":false}]},"value-required":false},"required":false}],
       "schema-id":1,"identifier-field-ids":[]}
      """;

  private static JsonNode json(String text) {
    try {
      return TableMetadataParser.mapper().readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(e);
    }
  }

  @Test
  void aSchemaWrittenByPyIcebergMeansTheSameAsTheJavaLibrarys() {
    assertThat(SameMeaning.schemas(json(JAVA_SCHEMA), json(PYICEBERG_SCHEMA))).isTrue();
    assertThat(SameMeaning.schemas(json(PYICEBERG_SCHEMA), json(JAVA_SCHEMA))).isTrue();
  }

  @Test
  void nullOptionalFieldsMeanAbsentOnes() {
    String withNulls =
        JAVA_SCHEMA.replace(
            "\"name\":\"id\",",
            "\"name\":\"id\",\"doc\":null,\"initial-default\":null,\"write-default\":null,");
    assertThat(SameMeaning.schemas(json(JAVA_SCHEMA), json(withNulls))).isTrue();
  }

  @Test
  void identifierFieldIdsAreASet() {
    String a =
        JAVA_SCHEMA.replace("\"schema-id\":1,", "\"schema-id\":1,\"identifier-field-ids\":[1,2],");
    String b =
        JAVA_SCHEMA.replace("\"schema-id\":1,", "\"schema-id\":1,\"identifier-field-ids\":[2,1],");
    assertThat(SameMeaning.schemas(json(a), json(b))).isTrue();
    assertThat(SameMeaning.schemas(json(a), json(JAVA_SCHEMA))).isFalse();
  }

  @Test
  void primitiveTypeNamesAreReadCaseInsensitively() {
    assertThat(
            SameMeaning.schemas(
                json(JAVA_SCHEMA), json(JAVA_SCHEMA.replace("\"long\"", "\"LONG\""))))
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"type\":\"long\"|\"type\":\"int\"",
        "\"name\":\"id\"|\"name\":\"ID\"",
        "{\"id\":1,|{\"id\":9,",
        "\"required\":true|\"required\":false",
        "\"doc\":\"in euros\"|\"doc\":\"in cents\"",
        "decimal(9, 2)|decimal(9, 3)",
        "\"element-required\":false|\"element-required\":true",
        "\"name\":\"v\"|\"name\":\"w\"",
        "\"name\":\"id\",|\"name\":\"id\",\"initial-default\":7,"
      })
  void aRealSchemaDifferenceIsRefused(String change) {
    String[] fromTo = change.split("\\|");
    String changed = JAVA_SCHEMA.replace(fromTo[0], fromTo[1]);
    assertThat(changed).isNotEqualTo(JAVA_SCHEMA);
    assertThat(SameMeaning.schemas(json(JAVA_SCHEMA), json(changed))).isFalse();
    assertThat(SameMeaning.schemas(json(PYICEBERG_SCHEMA), json(changed))).isFalse();
  }

  private static final String SPEC =
      """
      {"spec-id":1,"fields":[
        {"name":"category","transform":"identity","source-id":2,"field-id":1000},
        {"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1001},
        {"name":"gone","transform":"void","source-id":3,"field-id":1002}]}
      """;

  @Test
  void partitionSpecsCompareTransformsCaseInsensitivelyAndInAnyKeyOrder() {
    String other =
        """
        {"fields":[
          {"source-id":2,"field-id":1000,"transform":"IDENTITY","name":"category"},
          {"source-ids":[1],"field-id":1001,"transform":"Bucket[16]","name":"id_bucket"},
          {"source-id":3,"field-id":1002,"transform":"VOID","name":"gone"}],"spec-id":1}
        """;
    assertThat(SameMeaning.partitionSpecs(json(SPEC), json(other))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "bucket[16]|bucket[8]",
        "\"transform\":\"identity\"|\"transform\":\"void\"",
        "\"source-id\":2|\"source-id\":3",
        "\"field-id\":1001|\"field-id\":1003",
        "\"name\":\"category\"|\"name\":\"cat\""
      })
  void aRealSpecDifferenceIsRefused(String change) {
    String[] fromTo = change.split("\\|");
    String changed = SPEC.replace(fromTo[0], fromTo[1]);
    assertThat(changed).isNotEqualTo(SPEC);
    assertThat(SameMeaning.partitionSpecs(json(SPEC), json(changed))).isFalse();
  }

  @Test
  void partitionSpecFieldOrderIsMeaning() {
    String reordered =
        """
        {"spec-id":1,"fields":[
          {"name":"id_bucket","transform":"bucket[16]","source-id":1,"field-id":1001},
          {"name":"category","transform":"identity","source-id":2,"field-id":1000},
          {"name":"gone","transform":"void","source-id":3,"field-id":1002}]}
        """;
    assertThat(SameMeaning.partitionSpecs(json(SPEC), json(reordered))).isFalse();
  }

  private static final String ORDER =
      """
      {"order-id":1,"fields":[{"transform":"identity","source-id":2,"direction":"asc","null-order":"nulls-first"}]}
      """;

  @Test
  void sortOrdersCompareDirectionsCaseInsensitively() {
    String other =
        """
        {"fields":[{"source-id":2,"transform":"IDENTITY","direction":"ASC","null-order":"NULLS-FIRST"}],"order-id":1}
        """;
    assertThat(SameMeaning.sortOrders(json(ORDER), json(other))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "\"direction\":\"asc\"|\"direction\":\"desc\"",
        "nulls-first|nulls-last",
        "\"source-id\":2|\"source-id\":1",
        "\"transform\":\"identity\"|\"transform\":\"bucket[4]\""
      })
  void aRealSortOrderDifferenceIsRefused(String change) {
    String[] fromTo = change.split("\\|");
    String changed = ORDER.replace(fromTo[0], fromTo[1]);
    assertThat(changed).isNotEqualTo(ORDER);
    assertThat(SameMeaning.sortOrders(json(ORDER), json(changed))).isFalse();
  }
}
