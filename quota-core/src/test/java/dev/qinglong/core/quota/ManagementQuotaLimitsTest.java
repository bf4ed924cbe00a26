package dev.qinglong.core.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.policy.ProjectPolicyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Who may set and read limits, and what reaches the store. */
class ManagementQuotaLimitsTest {
  private final List<String> writes = new ArrayList<>();
  private final List<QuotaLimitsRevision> users = new ArrayList<>();

  private final ManagementQuotaStore store =
      new DecidingOnlyStore() {
        @Override
        public QuotaDecision consume(
            QuotaKey key, ReceiptId receipt, RequestDigest request, int limit, Duration window) {
          throw new AssertionError("no decision");
        }

        @Override
        public QuotaLimitsRevision putLimits(
            String projectId, String userId, QuotaLimits limits, String setBy) {
          writes.add(projectId + "/" + userId + " by " + setBy);
          return new QuotaLimitsRevision(projectId, userId, 1, limits, setBy, 0);
        }

        @Override
        public Optional<QuotaLimitsRevision> limits(String projectId, String userId) {
          return Optional.empty();
        }

        @Override
        public List<QuotaLimitsRevision> userLimits(
            String projectId, String afterUserId, int size) {
          return users.stream()
              .filter(r -> afterUserId == null || r.userId().compareTo(afterUserId) > 0)
              .limit(size)
              .toList();
        }

        @Override
        public List<ShadowRefusal> shadowRefusals(String projectId, Duration window, int size) {
          return List.of();
        }
      };

  private final ProjectPolicyStore members =
      new ProjectPolicyStore() {
        @Override
        public Set<Permission> permissionsOf(String projectId, String userId) {
          return userId.equals("padmin") ? Set.of(Permission.PROJECT_ADMIN) : Set.of();
        }

        @Override
        public void replaceMember(ProjectMember member) {
          throw new AssertionError();
        }

        @Override
        public List<ProjectMember> members(String projectId) {
          return List.of();
        }

        @Override
        public List<ProjectMember> members(String projectId, String afterUserId, int limit) {
          return List.of();
        }
      };

  private final ManagementQuotaLimits limits =
      new ManagementQuotaLimits(
          new ProjectPolicy(members, Set.of("root")), store, ManagementQuotaPolicy.defaults());

  private static final QuotaLimits FIFTY =
      new QuotaLimits(Map.of(QuotaOperation.PROPOSE, 50), Map.of());

  @Test
  void onlyAGlobalAdministratorSetsLimitsAndAProjectAdminIsRefusedWithNothingWritten() {
    assertThatThrownBy(() -> limits.putProject(new Principal("padmin"), "prj", FIFTY))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> limits.putUser(new Principal("padmin"), "prj", "bob", FIFTY))
        .isInstanceOf(ForbiddenException.class);
    assertThat(writes).isEmpty();
    assertThat(limits.putProject(new Principal("root"), "prj", FIFTY).setBy()).isEqualTo("root");
    limits.putUser(new Principal("root"), "prj", "bob", QuotaLimits.NONE);
    assertThat(writes).containsExactly("prj/null by root", "prj/bob by root");
  }

  @Test
  void badIdentifiersAreRefusedBeforeAnyoneIsAsked() {
    assertThatThrownBy(() -> limits.putProject(new Principal("root"), "a b", FIFTY))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> limits.putUser(new Principal("root"), "prj", "a b", FIFTY))
        .isInstanceOf(ValidationException.class);
    assertThat(writes).isEmpty();
  }

  @Test
  void projectAdminsAndGlobalAdminsReadOthersDoNot() {
    assertThat(limits.read(new Principal("padmin"), "prj", null, null).defaults())
        .containsEntry(QuotaOperation.PROPOSE, 30);
    assertThat(limits.read(new Principal("root"), "prj", null, null).project()).isEmpty();
    assertThatThrownBy(() -> limits.read(new Principal("mallory"), "prj", null, null))
        .isInstanceOf(ForbiddenException.class);
  }

  @Test
  void userOverridesArePagedWithAnOpaqueCursor() {
    for (String user : List.of("a", "b", "c")) {
      users.add(new QuotaLimitsRevision("prj", user, 1, FIFTY, "root", 0));
    }
    QuotaPolicyPage first = limits.read(new Principal("root"), "prj", 2, null);
    assertThat(first.users()).extracting(QuotaLimitsRevision::userId).containsExactly("a", "b");
    assertThat(first.nextCursor()).isNotNull();
    QuotaPolicyPage second = limits.read(new Principal("root"), "prj", 2, first.nextCursor());
    assertThat(second.users()).extracting(QuotaLimitsRevision::userId).containsExactly("c");
    assertThat(second.nextCursor()).isNull();
    assertThatThrownBy(() -> limits.read(new Principal("root"), "prj", 0, null))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> limits.read(new Principal("root"), "prj", 2, "bm90LWEtY3Vyc29y"))
        .isInstanceOf(ValidationException.class);
  }
}
