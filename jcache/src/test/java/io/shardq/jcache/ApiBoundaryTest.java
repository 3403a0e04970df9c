package io.shardq.jcache;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.shardq.broker.testing.ApiBoundary;

/** This module's main classes use only the engine's API (see {@link ApiBoundary}). */
@AnalyzeClasses(packages = "io.shardq.jcache", importOptions = ImportOption.DoNotIncludeTests.class)
class ApiBoundaryTest {
    @ArchTest
    static final ArchRule usesOnlyTheEngineApi = ApiBoundary.RULE;
}
