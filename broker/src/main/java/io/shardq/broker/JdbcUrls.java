package io.shardq.broker;

import java.util.regex.Pattern;

/** Helpers for showing JDBC URLs to people without leaking passwords. */
public final class JdbcUrls {
    private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)(password=)[^&;]*");
    private static final Pattern USERINFO = Pattern.compile("(//[^/:@]+:)[^@/]*@");

    private JdbcUrls() {}

    /** The URL with any password (query parameter or user-info) replaced by {@code ***}. */
    public static String mask(String url) {
        if (url == null) {
            return null;
        }
        String masked = PASSWORD_PARAM.matcher(url).replaceAll("$1***");
        return USERINFO.matcher(masked).replaceAll("$1***@");
    }
}
