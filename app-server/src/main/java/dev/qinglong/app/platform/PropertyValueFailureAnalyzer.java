package dev.qinglong.app.platform;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.DataObjectPropertyName;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.bind.validation.ValidationErrors;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.origin.Origin;
import org.springframework.core.Ordered;
import org.springframework.core.convert.ConversionFailedException;
import org.springframework.validation.FieldError;
import org.springframework.validation.ObjectError;

/**
 * A property value that does not bind or does not validate, reported as the user wrote it: the
 * property, the value given (as typed, and where it was set) and the bound or the valid values, in
 * place of Spring Boot's own report (which names a validation method such as {@code
 * windowWithinBounds} with {@code Value: "false"}, and lists enum values in upper case). Runs
 * before Spring Boot's analyzers.
 */
public final class PropertyValueFailureAnalyzer implements FailureAnalyzer, Ordered {

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  public FailureAnalysis analyze(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof BindValidationException invalid) {
        return invalid(invalid.getValidationErrors(), failure);
      }
      if (t instanceof BindException bind && enumType(bind) != null) {
        return notOneOf(bind, enumType(bind), failure);
      }
    }
    return null;
  }

  /** The enum a value failed to convert to, or null. */
  private static Class<?> enumType(BindException bind) {
    for (Throwable c = bind.getCause(); c != null; c = c.getCause()) {
      if (c instanceof ConversionFailedException conversion
          && conversion.getTargetType().getType().isEnum()) {
        return conversion.getTargetType().getType();
      }
    }
    return null;
  }

  /** The values a user types for {@code type}: lower case, dashes (as {@code dev-tokens}). */
  static List<String> valuesAsTyped(Class<?> type) {
    return Arrays.stream(type.getEnumConstants())
        .map(c -> ((Enum<?>) c).name().toLowerCase(Locale.ROOT).replace('_', '-'))
        .toList();
  }

  private static FailureAnalysis notOneOf(BindException bind, Class<?> type, Throwable failure) {
    String name = bind.getName().toString();
    ConfigurationProperty given = bind.getProperty();
    String valid = String.join(", ", valuesAsTyped(type));
    String value = given == null ? "" : String.valueOf(given.getValue());
    return new FailureAnalysis(
        name + "=" + value + where(given) + " is not a valid value; valid values: " + valid,
        "Set " + name + " to one of " + valid + ", or remove it to use the default.",
        failure);
  }

  private static FailureAnalysis invalid(ValidationErrors errors, Throwable failure) {
    List<String> problems = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (ObjectError error : errors.getAllErrors()) {
      String message =
          error.getDefaultMessage() == null ? "is not valid" : error.getDefaultMessage();
      ConfigurationProperty given = given(errors, error, message);
      String name = given != null ? given.getName().toString() : named(errors, error, message);
      if (message.startsWith(name + " ")) {
        message = message.substring(name.length() + 1);
      }
      String value =
          given != null
              ? String.valueOf(given.getValue())
              : error instanceof FieldError field && !isCheckMethod(field)
                  ? String.valueOf(field.getRejectedValue())
                  : null;
      problems.add(name + (value == null ? "" : "=" + value) + where(given) + ": " + message);
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    return new FailureAnalysis(
        problems.stream().collect(Collectors.joining("\n")),
        "Change "
            + String.join(", ", names)
            + " to a value within the bound given above, or remove it to use the default.",
        failure);
  }

  /**
   * The property as given: the bound property the failed field names, or the property a check
   * method's message starts with ({@code qinglong.x.y must be …}).
   */
  private static ConfigurationProperty given(
      ValidationErrors errors, ObjectError error, String message) {
    String field = error instanceof FieldError f ? fieldName(errors, f) : null;
    String named = message.contains(" ") ? message.substring(0, message.indexOf(' ')) : message;
    for (ConfigurationProperty p : errors.getBoundProperties()) {
      String n = p.getName().toString();
      if (n.equals(field) || n.equals(named)) {
        return p;
      }
    }
    return null;
  }

  /** The property a check method's message names, else the failed field's property. */
  private static String named(ValidationErrors errors, ObjectError error, String message) {
    String first = message.contains(" ") ? message.substring(0, message.indexOf(' ')) : message;
    if (error instanceof FieldError field
        && isCheckMethod(field)
        && first.startsWith(errors.getName() + ".")) {
      return first;
    }
    return fieldName(errors, error);
  }

  private static String fieldName(ValidationErrors errors, ObjectError error) {
    if (error instanceof FieldError field) {
      return errors.getName() + "." + DataObjectPropertyName.toDashedForm(field.getField());
    }
    return errors.getName().toString();
  }

  /** A boolean {@code isXxx()} check method ({@code @AssertTrue}), not a property. */
  private static boolean isCheckMethod(FieldError field) {
    return field.getRejectedValue() instanceof Boolean;
  }

  private static String where(ConfigurationProperty given) {
    Origin origin = given == null ? null : given.getOrigin();
    return origin == null ? "" : " (" + origin + ")";
  }
}
