package io.shardq.tools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class TextTableTest {

    @Test
    void numberColumnsAlignRight_othersLeft_nullIsADash_noTrailingSpaces() {
        TextTable t = new TextTable("NAME", "BACKLOG", "HOLDER")
                .row("orders", 12_345L, null)
                .row("q", 7L, "i-1");
        assertThat(t.render())
                .isEqualTo("NAME    BACKLOG  HOLDER\n" + "orders    12345  -\n" + "q             7  i-1\n");
    }

    @Test
    void aColumnWithOneTextCell_isLeftAligned_andAnEmptyTable_isItsHeader() {
        assertThat(new TextTable("A", "B").row(1, "x").row("y", 2).render()).isEqualTo("A  B\n1  x\ny  2\n");
        TextTable empty = new TextTable("A", "B");
        assertThat(empty.isEmpty()).isTrue();
        assertThat(empty.render()).isEqualTo("A  B\n");
    }

    @Test
    void numericTables_alignUnmarkedColumnsRight_andMarksDecide() {
        TextTable t = TextTable.numeric("threads", "<system", "msg/s")
                .row("1", "shardq", "19,911")
                .row("16", "ceiling2", "95,613");
        assertThat(t.render())
                .isEqualTo(
                        "threads  system     msg/s\n" + "      1  shardq    19,911\n" + "     16  ceiling2  95,613\n");
        assertThat(new TextTable(">N", "<M").row("7", 8).render()).isEqualTo("N  M\n7  8\n");
    }

    @Test
    void theCellFormatter_isUsed_andPrintWritesTheSameText() {
        TextTable t = new TextTable("N").cells(o -> "<" + o + ">").row(5);
        StringWriter s = new StringWriter();
        t.print(new PrintWriter(s, true));
        assertThat(s.toString()).isEqualTo(t.render()).isEqualTo("  N\n<5>\n");
    }

    @Test
    void aRowOfTheWrongWidth_isRefused() {
        assertThatThrownBy(() -> new TextTable("A", "B").row("x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("row of 1 cells is invalid: expected 2");
    }
}
