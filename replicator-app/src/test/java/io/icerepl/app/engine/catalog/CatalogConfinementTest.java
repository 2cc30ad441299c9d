package io.icerepl.app.engine.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.icerepl.merge.error.BadInputException;
import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogConfinementTest {
  private static final CatalogSpec GLUE = CatalogSpec.parse("name=c,type=glue,warehouse=s3://b/wh");

  @Test
  void theAllowedPrefixesGivenWinOverTheWarehouse() {
    assertThat(CatalogConfinement.roots(List.of("s3://other/x"), GLUE, null))
        .containsExactly("s3://other/x");
    assertThat(CatalogConfinement.roots(List.of(), GLUE, null)).containsExactly("s3://b/wh");
  }

  @Test
  void aWarehouseNamedByAnArnOrANameIsNoRoot() {
    for (String warehouse :
        List.of("arn:aws:s3tables:us-east-1:123456789012:bucket/tables", "my_catalog")) {
      CatalogSpec spec = CatalogSpec.parse("name=c,type=glue,warehouse=" + warehouse);
      assertThat(CatalogConfinement.roots(List.of(), spec, null)).as(warehouse).isEmpty();
    }
  }

  @Test
  void aLocationUnderARootInAnySpellingPassesAndOneElsewhereIsRefused() {
    List<String> roots = List.of("s3://b/wh");
    CatalogConfinement.check("db.t", GLUE, "s3a://b/wh/db/t", roots, "the catalog's warehouse");
    CatalogConfinement.check("db.t", GLUE, "s3://b/elsewhere", List.of(), "nothing");

    assertThatThrownBy(
            () ->
                CatalogConfinement.check(
                    "db.t", GLUE, "s3://b/wh2/db/t", roots, "the catalog's warehouse"))
        .isInstanceOf(BadInputException.class)
        .hasMessage(
            "Cannot replicate table db.t of catalog c (glue s3://b/wh): the catalog reports its"
                + " location s3://b/wh2/db/t, outside the catalog's warehouse [s3://b/wh]; nothing"
                + " was copied");
  }
}
