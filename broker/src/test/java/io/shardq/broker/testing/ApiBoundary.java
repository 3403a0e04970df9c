package io.shardq.broker.testing;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

import com.tngtech.archunit.core.domain.AccessTarget;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The engine's public API, and the ArchUnit rule that keeps the modules built on it
 * ({@code jms-provider}, {@code jcache}, {@code admin-cli}, {@code perf}, {@code metrics}, {@code spring-boot}) to it. Each of them has an {@code
 * ApiBoundaryTest} that imports its own main classes and checks {@link #RULE}, so reaching an
 * engine internal fails {@code ./mvnw verify} with the class and the internal type named.
 *
 * <p>A class of {@code io.shardq.broker..} is API when its package is in {@link #API_PACKAGES}
 * or its top-level class is in {@link #API_CLASSES}; nested types of an API class are API.
 * Everything else under {@code io.shardq.broker} is internal, whether or not Java lets it be
 * seen (it is public when another engine package needs it).
 *
 * <p>The rule looks at more than imports: besides every direct dependency (field, parameter,
 * return and local types, calls, casts, annotations), it checks the signature of every member
 * a class accesses, so calling an API method that returns an internal type and dropping the
 * result (which leaves no trace in the caller's constant pool) is a violation too. An internal
 * type in an API signature is for the engine to fix, not for its callers to use.
 *
 * <p>Why ArchUnit rather than a {@code module-info.java}: see "API boundary" in {@code
 * docs/architecture.md}.
 */
public final class ApiBoundary {
    /** The engine's root package. */
    public static final String ENGINE = "io.shardq.broker";

    /** Packages that are API as a whole. */
    public static final Set<String> API_PACKAGES =
            Set.of(ENGINE + ".message", ENGINE + ".selector", ENGINE + ".browse");

    /** API classes in packages that are otherwise internal (top-level names). */
    public static final Set<String> API_CLASSES = Set.of(
            ENGINE + ".Broker",
            ENGINE + ".BrokerConfig",
            ENGINE + ".BrokerProperty",
            ENGINE + ".Admin",
            // Admin's parts, reached from Admin#queues(), #topics(), #caches(), #grants(), #cluster()
            ENGINE + ".QueueAdmin",
            ENGINE + ".TopicAdmin",
            ENGINE + ".CacheAdmin",
            ENGINE + ".GrantAdmin",
            ENGINE + ".ClusterView",
            ENGINE + ".QueueOptions",
            ENGINE + ".QueueStats",
            ENGINE + ".TopicInfo",
            ENGINE + ".TopicStats",
            ENGINE + ".ShardQException",
            ENGINE + ".ErrorKind",
            ENGINE + ".Privilege",
            // two-phase commit and temporary destinations, reached from Broker#xa and Broker#temporaries
            ENGINE + ".TwoPhaseCommit",
            ENGINE + ".Temporaries",
            // metrics (issue 13): this instance's counts per destination and its message cache
            ENGINE + ".DestinationCounters",
            ENGINE + ".MessageCacheStats",
            ENGINE + ".RoleAccess",
            // a JDBC URL with its password masked: the Spring Boot starter names the DataSource's URL in errors
            ENGINE + ".JdbcUrls",
            // topics: which subscription a consumer wants, and what shardq.subscriptions shows
            ENGINE + ".SubscriptionSpec",
            ENGINE + ".SubscriptionStats",
            // key/value caches (issue 11): the cache view, its codecs, and what the admin API shows
            ENGINE + ".CacheOptions",
            ENGINE + ".CacheInfo",
            ENGINE + ".CacheStats",
            ENGINE + ".kv.KvCache",
            ENGINE + ".kv.KvWriteBehind",
            ENGINE + ".kv.Codec",
            ENGINE + ".catalog.DestinationInfo",
            ENGINE + ".catalog.Names",
            ENGINE + ".shard.BrokerSession",
            ENGINE + ".shard.BrokerProducer",
            ENGINE + ".shard.BrokerConsumer",
            ENGINE + ".shard.Delivery",
            ENGINE + ".shard.EngineStats",
            ENGINE + ".shard.StepTimes",
            // the pool (and embedded server) without an engine: the CLI's migrate and status, perf's baseline
            ENGINE + ".store.Database");

    /** Classes may use of the engine only its API. */
    public static final ArchRule RULE = classes()
            .should(useOnlyTheEngineApi())
            .because("the engine's internals may change with any commit: use its API (see"
                    + " io.shardq.broker.testing.ApiBoundary and docs/architecture.md, \"API boundary\")");

    private ApiBoundary() {}

    /** True when {@code c} (or the array component it holds) belongs to the engine but not its API. */
    public static boolean isInternal(JavaClass c) {
        JavaClass base = c.getBaseComponentType();
        String pkg = base.getPackageName();
        if (!pkg.equals(ENGINE) && !pkg.startsWith(ENGINE + ".")) {
            return false;
        }
        return !API_PACKAGES.contains(pkg) && !API_CLASSES.contains(topLevelName(base));
    }

    private static String topLevelName(JavaClass c) {
        String name = c.getName();
        int nested = name.indexOf('$');
        return nested < 0 ? name : name.substring(0, nested);
    }

    private static ArchCondition<JavaClass> useOnlyTheEngineApi() {
        return new ArchCondition<>("use only the engine's API") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                String self = topLevelName(origin);
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass();
                    if (isInternal(target)
                            && !topLevelName(target.getBaseComponentType()).equals(self)) {
                        events.add(SimpleConditionEvent.violated(
                                d,
                                origin.getName() + " uses engine internal "
                                        + target.getBaseComponentType().getName() + ": " + d.getDescription()));
                    }
                }
                for (JavaAccess<?> access : origin.getAccessesFromSelf()) {
                    for (JavaClass type : signatureTypes(access.getTarget())) {
                        if (isInternal(type)
                                && !topLevelName(type.getBaseComponentType()).equals(self)) {
                            events.add(SimpleConditionEvent.violated(
                                    access,
                                    origin.getName() + " uses engine internal "
                                            + type.getBaseComponentType().getName()
                                            + " through the signature of "
                                            + access.getTarget().getFullName()
                                            + ": " + access.getDescription()));
                        }
                    }
                }
            }
        };
    }

    private static List<JavaClass> signatureTypes(AccessTarget target) {
        List<JavaClass> types = new ArrayList<>();
        if (target instanceof AccessTarget.CodeUnitAccessTarget unit) {
            types.add(unit.getRawReturnType());
            types.addAll(unit.getRawParameterTypes());
        } else if (target instanceof AccessTarget.FieldAccessTarget field) {
            types.add(field.getRawType());
        }
        return types;
    }
}
