package dev.kairos.engine.internal;

import com.cronutils.descriptor.CronDescriptor;
import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinition;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.field.CronField;
import com.cronutils.model.field.CronFieldName;
import com.cronutils.model.field.definition.DayOfWeekFieldDefinition;
import com.cronutils.model.field.expression.Always;
import com.cronutils.model.field.expression.And;
import com.cronutils.model.field.expression.Between;
import com.cronutils.model.field.expression.Every;
import com.cronutils.model.field.expression.FieldExpression;
import com.cronutils.model.field.expression.On;
import com.cronutils.model.field.expression.QuestionMark;
import com.cronutils.model.field.value.FieldValue;
import com.cronutils.model.field.value.SpecialChar;
import com.cronutils.parser.CronParser;
import dev.kairos.CronSyntax;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a cron expression into a {@link CronPattern}, with cron-utils as the parser: the only class
 * that sees cron-utils types. Errors are {@link IllegalArgumentException}s whose message names the
 * expression, the syntax, the offending field and what is wrong with it; callers add the job key.
 * Public only for {@code CronPreview}'s description.
 */
public final class CronCompiler {
  private static final String[] QUARTZ_FIELDS = {
    "second", "minute", "hour", "day-of-month", "month", "day-of-week", "year"
  };
  private static final String[] UNIX_FIELDS = {
    "minute", "hour", "day-of-month", "month", "day-of-week"
  };
  private static final String[] SPRING_FIELDS = {
    "second", "minute", "hour", "day-of-month", "month", "day-of-week"
  };

  /**
   * Compiling costs about a millisecond (mostly cron-utils), and timetables are built per job and
   * fire, so compiled patterns (immutable) are kept, up to {@link #CACHE_SIZE}; then the cache
   * starts again. Invalid expressions are not kept.
   */
  private static final int CACHE_SIZE = 1024;

  private static final ConcurrentHashMap<Source, CronPattern> COMPILED = new ConcurrentHashMap<>();

  private record Source(String expression, CronSyntax syntax) {}

  private CronCompiler() {}

  /** Compiles the expression, or throws {@link IllegalArgumentException} saying what is wrong. */
  static CronPattern compile(String expression, CronSyntax syntax) {
    Source source = new Source(expression, syntax);
    CronPattern pattern = COMPILED.get(source);
    if (pattern == null) {
      pattern = compileUncached(expression, syntax);
      if (COMPILED.size() >= CACHE_SIZE) {
        COMPILED.clear();
      }
      COMPILED.put(source, pattern);
    }
    return pattern;
  }

  private static CronPattern compileUncached(String expression, CronSyntax syntax) {
    Cron cron = parse(expression, syntax);
    try {
      return new CronPattern(
          timeField(cron, CronFieldName.HOUR, 0, 23),
          timeField(cron, CronFieldName.MINUTE, 0, 59),
          timeField(cron, CronFieldName.SECOND, 0, 59),
          new CronPattern.DateRule(
              values(cron, CronFieldName.MONTH, 1, 12),
              years(cron),
              dayOfMonth(cron),
              dayOfWeek(cron),
              eitherDay(cron, syntax)));
    } catch (Unsupported e) {
      throw invalid(expression, syntax, e.field + " field '" + e.text + "': not supported");
    }
  }

  /**
   * A human-readable description of the expression in the locale, by cron-utils.
   *
   * @throws IllegalArgumentException if the expression is invalid, naming the field
   */
  public static String describe(String expression, CronSyntax syntax, Locale locale) {
    return CronDescriptor.instance(locale).describe(parse(expression, syntax));
  }

  private static Cron parse(String expression, CronSyntax syntax) {
    if (expression == null || expression.isBlank()) {
      throw new IllegalArgumentException("cron expression is null or blank");
    }
    String trimmed = expression.trim();
    String[] names = fieldNames(syntax);
    String[] parts = trimmed.split("\\s+");
    boolean nickname = trimmed.startsWith("@");
    int min = syntax == CronSyntax.QUARTZ ? 6 : names.length;
    if (!nickname && (parts.length < min || parts.length > names.length)) {
      throw invalid(
          trimmed,
          syntax,
          "expected "
              + (min == names.length ? "" + min : min + " or " + names.length)
              + " fields ("
              + String.join(" ", names)
              + (syntax == CronSyntax.QUARTZ ? ", the year optional" : "")
              + ") but found "
              + parts.length);
    }
    try {
      return parser(syntax).parse(trimmed);
    } catch (RuntimeException e) { // cron-utils also throws index errors, for '7-/' say
      throw invalid(trimmed, syntax, nickname ? nicknameReason(syntax) : culprit(parts, syntax, e));
    }
  }

  /** Nicknames the SPRING syntax takes (cron-utils's Spring 5.3 definition). */
  private static final String SPRING_NICKNAMES =
      "@yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly";

  /** Why an expression starting with '@' does not parse: which syntax takes which nicknames. */
  private static String nicknameReason(CronSyntax syntax) {
    return syntax == CronSyntax.SPRING
        ? "not a nickname SPRING knows; it takes " + SPRING_NICKNAMES
        : "nicknames such as @daily are SPRING syntax only (it takes " + SPRING_NICKNAMES + ")";
  }

  /** Names the first field that fails on its own, with cron-utils's reason. */
  private static String culprit(String[] parts, CronSyntax syntax, RuntimeException whole) {
    String[] names = fieldNames(syntax);
    for (int i = 0; i < parts.length; i++) {
      RuntimeException failure = fieldFailure(parts, i, syntax);
      if (failure != null) {
        return names[i] + " field '" + parts[i] + "': " + fieldReason(parts[i], failure);
      }
    }
    if (syntax == CronSyntax.QUARTZ && (parts[3].equals("?") == parts[5].equals("?"))) {
      return "day-of-month '"
          + parts[3]
          + "' and day-of-week '"
          + parts[5]
          + "': Quartz needs '?' in exactly one of the two (e.g. '0 0 12 ? * MON' or"
          + " '0 0 12 1 * ?')";
    }
    return reason(whole);
  }

  /**
   * Parses field {@code i} within neutral values for the others; returns the failure, or null.
   * Quartz's day fields are tried with '?' and '*' opposite, since exactly one must be '?'.
   */
  private static RuntimeException fieldFailure(String[] parts, int i, CronSyntax syntax) {
    RuntimeException failure = null;
    for (String opposite : new String[] {"?", "*"}) {
      String[] probe =
          switch (syntax) {
            case QUARTZ -> new String[] {"0", "0", "0", "*", "*", "?", "*"};
            case UNIX -> new String[] {"*", "*", "*", "*", "*"};
            case SPRING -> new String[] {"0", "0", "0", "*", "*", "*"};
          };
      if (syntax == CronSyntax.QUARTZ && (i == 3 || i == 5)) {
        probe[8 - i] = opposite;
      }
      probe[i] = parts[i];
      try {
        parser(syntax).parse(String.join(" ", probe));
        return null;
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    return failure;
  }

  /**
   * Why a field fails: a step of zero said in plain words (cron-utils says "Period 0 not in range",
   * which reads as a contradiction), else cron-utils's reason.
   */
  private static String fieldReason(String field, RuntimeException e) {
    if (java.util.Arrays.stream(field.split(",")).anyMatch(part -> part.matches(".*/0+"))) {
      return "a step (after '/') must be at least 1";
    }
    return reason(e);
  }

  private static String reason(RuntimeException e) {
    if (!(e instanceof IllegalArgumentException)) {
      return "malformed";
    }
    String m = String.valueOf(e.getMessage());
    return m.startsWith("Failed to parse cron expression. ")
        ? m.substring("Failed to parse cron expression. ".length())
        : m;
  }

  static IllegalArgumentException invalid(String expression, CronSyntax syntax, String problem) {
    return new IllegalArgumentException(
        "invalid cron expression '" + expression + "' (" + syntax + " syntax): " + problem);
  }

  private static String[] fieldNames(CronSyntax syntax) {
    return switch (syntax) {
      case QUARTZ -> QUARTZ_FIELDS;
      case UNIX -> UNIX_FIELDS;
      case SPRING -> SPRING_FIELDS;
    };
  }

  private static CronParser parser(CronSyntax syntax) {
    return new CronParser(definition(syntax));
  }

  private static CronDefinition definition(CronSyntax syntax) {
    return CronDefinitionBuilder.instanceDefinitionFor(
        switch (syntax) {
          case QUARTZ -> CronType.QUARTZ;
          case UNIX -> CronType.UNIX;
          case SPRING -> CronType.SPRING53;
        });
  }

  // ---- from cron-utils's model to our own ----

  private static int[] timeField(Cron cron, CronFieldName name, int min, int max) {
    if (cron.retrieve(name) == null) {
      return new int[] {0}; // crontab has no seconds: second 0
    }
    return values(cron, name, min, max).stream().toArray();
  }

  private static BitSet years(Cron cron) {
    CronField year = cron.retrieve(CronFieldName.YEAR);
    if (year == null || isUnrestricted(year.getExpression())) {
      return null;
    }
    return values(cron, CronFieldName.YEAR, 1970, 2099);
  }

  private static BitSet values(Cron cron, CronFieldName name, int min, int max) {
    CronField field = cron.retrieve(name);
    return field == null ? range(min, max) : values(field.getExpression(), name, min, max);
  }

  /** The plain values of a field expression, where min and max wrap ranges such as 22-2. */
  private static BitSet values(FieldExpression e, CronFieldName name, int min, int max) {
    if (isUnrestricted(e)) {
      return range(min, max);
    } else if (e instanceof On on && on.getSpecialChar().getValue() == SpecialChar.NONE) {
      return bits(on.getTime().getValue());
    } else if (e instanceof Between b) {
      BitSet bits = new BitSet();
      sequence(b, name, min, max).forEach(bits::set);
      return bits;
    } else if (e instanceof Every every) {
      List<Integer> seq = everySequence(every, name, min, max);
      BitSet bits = new BitSet();
      int period = every.getPeriod().getValue();
      for (int i = 0; i < seq.size(); i += period) {
        bits.set(seq.get(i));
      }
      return bits;
    } else if (e instanceof And and) {
      BitSet bits = new BitSet();
      for (FieldExpression part : and.getExpressions()) {
        bits.or(values(part, name, min, max));
      }
      return bits;
    }
    throw new Unsupported(name, e);
  }

  private static List<Integer> everySequence(Every every, CronFieldName name, int min, int max) {
    FieldExpression start = every.getExpression();
    if (isUnrestricted(start)) {
      return sequence(min, max, min, max);
    } else if (start instanceof On on && on.getSpecialChar().getValue() == SpecialChar.NONE) {
      return sequence(on.getTime().getValue(), max, min, max);
    } else if (start instanceof Between b) {
      return sequence(b, name, min, max);
    }
    throw new Unsupported(name, every);
  }

  private static List<Integer> sequence(Between b, CronFieldName name, int min, int max) {
    return sequence(intValue(b.getFrom(), name, b), intValue(b.getTo(), name, b), min, max);
  }

  /** from, from + 1, ..., to, wrapping past max to min when to is below from. */
  private static List<Integer> sequence(int from, int to, int min, int max) {
    List<Integer> seq = new ArrayList<>();
    int v = from;
    while (seq.size() <= max - min) {
      seq.add(v);
      if (v == to) {
        break;
      }
      v = v == max ? min : v + 1;
    }
    return seq;
  }

  private static int intValue(FieldValue<?> v, CronFieldName name, FieldExpression e) {
    if (v.getValue() instanceof Integer i) {
      return i;
    }
    throw new Unsupported(name, e);
  }

  private static CronPattern.DayOfMonth dayOfMonth(Cron cron) {
    FieldExpression e = cron.retrieve(CronFieldName.DAY_OF_MONTH).getExpression();
    if (isUnrestricted(e)) {
      return null;
    }
    BitSet days = new BitSet();
    List<Integer> fromLast = new ArrayList<>();
    List<Integer> nearest = new ArrayList<>();
    boolean lastWeekday = false;
    for (FieldExpression part : parts(e)) {
      SpecialChar special = part instanceof On on ? on.getSpecialChar().getValue() : null;
      if (special == SpecialChar.L) {
        int nth = ((On) part).getNth().getValue();
        fromLast.add(Math.max(nth, 0));
      } else if (special == SpecialChar.LW) {
        lastWeekday = true;
      } else if (special == SpecialChar.W) {
        nearest.add(((On) part).getTime().getValue());
      } else {
        days.or(values(part, CronFieldName.DAY_OF_MONTH, 1, 31));
      }
    }
    return new CronPattern.DayOfMonth(days, toArray(fromLast), toArray(nearest), lastWeekday);
  }

  private static CronPattern.DayOfWeekRule dayOfWeek(Cron cron) {
    FieldExpression e = cron.retrieve(CronFieldName.DAY_OF_WEEK).getExpression();
    if (isUnrestricted(e)) {
      return null;
    }
    DayOfWeekFieldDefinition def =
        (DayOfWeekFieldDefinition)
            cron.getCronDefinition().getFieldDefinition(CronFieldName.DAY_OF_WEEK);
    int monday = def.getMondayDoWValue().getMondayDoWValue();
    int min = def.getConstraints().getStartRange();
    int max = def.getConstraints().getEndRange();
    BitSet days = new BitSet();
    List<Integer> last = new ArrayList<>();
    List<int[]> nth = new ArrayList<>();
    for (FieldExpression part : parts(e)) {
      SpecialChar special = part instanceof On on ? on.getSpecialChar().getValue() : null;
      int time = part instanceof On on ? on.getTime().getValue() : -1;
      if (special == SpecialChar.L && time < 0) {
        days.set(iso(max, monday)); // 'L' alone: the last day of the week
      } else if (special == SpecialChar.L) {
        last.add(iso(time, monday));
      } else if (special == SpecialChar.HASH) {
        nth.add(new int[] {iso(time, monday), ((On) part).getNth().getValue()});
      } else {
        values(part, CronFieldName.DAY_OF_WEEK, min, max).stream()
            .forEach(v -> days.set(iso(v, monday)));
      }
    }
    return new CronPattern.DayOfWeekRule(days, toArray(last), nth.toArray(new int[0][]));
  }

  /** ISO day of week (Monday 1 to Sunday 7) of a value in a syntax whose Monday is {@code m}. */
  private static int iso(int value, int monday) {
    return Math.floorMod(value - monday, 7) + 1;
  }

  /**
   * True when crontab combines the two day fields with OR: when neither is '*' nor starts with '*'
   * (like '*&#47;2'), as in Vixie cron.
   */
  private static boolean eitherDay(Cron cron, CronSyntax syntax) {
    return syntax == CronSyntax.UNIX
        && !isStar(cron.retrieve(CronFieldName.DAY_OF_MONTH).getExpression())
        && !isStar(cron.retrieve(CronFieldName.DAY_OF_WEEK).getExpression());
  }

  private static boolean isStar(FieldExpression e) {
    return isUnrestricted(e) || (e instanceof Every every && isUnrestricted(every.getExpression()));
  }

  private static boolean isUnrestricted(FieldExpression e) {
    return e instanceof Always || e instanceof QuestionMark;
  }

  private static List<FieldExpression> parts(FieldExpression e) {
    return e instanceof And and ? and.getExpressions() : List.of(e);
  }

  private static BitSet range(int min, int max) {
    BitSet bits = new BitSet();
    bits.set(min, max + 1);
    return bits;
  }

  private static BitSet bits(int v) {
    BitSet bits = new BitSet();
    bits.set(v);
    return bits;
  }

  private static int[] toArray(List<Integer> list) {
    return list.stream().mapToInt(Integer::intValue).toArray();
  }

  /** A construct that cron-utils parses but this compiler does not evaluate. */
  private static final class Unsupported extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final String field;
    final String text;

    Unsupported(CronFieldName name, FieldExpression e) {
      super(null, null, false, false);
      this.field = name.toString().toLowerCase(Locale.ROOT).replace('_', '-');
      this.text = e.asString();
    }
  }
}
