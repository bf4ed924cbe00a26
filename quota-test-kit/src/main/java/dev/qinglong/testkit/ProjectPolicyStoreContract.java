package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.ForbiddenException;
import dev.qinglong.core.kernel.Principal;
import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.kernel.ValidationException;
import dev.qinglong.core.policy.MemberPage;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicy;
import dev.qinglong.core.policy.ProjectPolicyStore;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Contract of {@link ProjectPolicyStore}: permissions per Project member. */
public abstract class ProjectPolicyStoreContract extends StoreContractSupport {

  private ProjectPolicyStore store() {
    return fixture.policyStore(dataSource);
  }

  @Test
  void nonMemberHoldsNothingAndUnknownProjectHasNoMembers() {
    String project = unique("prj");
    assertThat(store().permissionsOf(project, "alice")).isEmpty();
    assertThat(store().members(project)).isEmpty();
  }

  @Test
  void replaceMemberStoresAndReplacesThePermissionSet() {
    String project = unique("prj");
    store()
        .replaceMember(
            new ProjectMember(
                project, "alice", Set.of(Permission.PACKAGE_MANAGE, Permission.PACKAGE_READ)));
    assertThat(store().permissionsOf(project, "alice"))
        .containsExactlyInAnyOrder(Permission.PACKAGE_MANAGE, Permission.PACKAGE_READ);

    store().replaceMember(new ProjectMember(project, "alice", Set.of(Permission.MODEL_INVOKE)));
    assertThat(store().permissionsOf(project, "alice")).containsExactly(Permission.MODEL_INVOKE);
  }

  @Test
  void everyPermissionRoundTrips() {
    String project = unique("prj");
    store().replaceMember(new ProjectMember(project, "admin", EnumSet.allOf(Permission.class)));
    assertThat(store().permissionsOf(project, "admin"))
        .containsExactlyInAnyOrder(Permission.values());
  }

  @Test
  void memberWithNoPermissionsStillMakesTheProjectExist() {
    String project = unique("prj");
    store().replaceMember(new ProjectMember(project, "carol", Set.of()));
    assertThat(store().permissionsOf(project, "carol")).isEmpty();
    assertThat(store().members(project))
        .containsExactly(new ProjectMember(project, "carol", Set.of()));
  }

  @Test
  void membersAreListedByUserIdAndScopedToTheirProject() {
    String project = unique("prj");
    String other = unique("prj");
    store().replaceMember(new ProjectMember(project, "zed", Set.of(Permission.PACKAGE_READ)));
    store().replaceMember(new ProjectMember(project, "bob", Set.of(Permission.APPROVAL_DECIDE)));
    store().replaceMember(new ProjectMember(other, "alice", Set.of(Permission.PROJECT_ADMIN)));
    assertThat(store().members(project))
        .extracting(ProjectMember::userId)
        .containsExactly("bob", "zed");
    assertThat(store().permissionsOf(project, "alice")).isEmpty();
    store().replaceMember(new ProjectMember(project, "bob", Set.of(Permission.APPROVAL_DECIDE)));
    assertThat(store().members(project)).hasSize(2);
  }

  @Test
  void unreachableDatabaseIsUnavailable() {
    ProjectPolicyStore broken = fixture.policyStore(FaultyDataSource.unreachable());
    assertThatThrownBy(() -> broken.permissionsOf("p", "u"))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> broken.replaceMember(new ProjectMember("p", "u", Set.of())))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void membersPageInUserIdOrderAfterTheGivenUser() {
    String project = unique("prj");
    for (String user : List.of("dave", "alice", "carol", "bob")) {
      store().replaceMember(new ProjectMember(project, user, Set.of(Permission.PACKAGE_READ)));
    }
    store().replaceMember(new ProjectMember(unique("prj"), "aaron", Set.of()));
    assertThat(store().members(project, null, 2))
        .extracting(ProjectMember::userId)
        .containsExactly("alice", "bob");
    assertThat(store().members(project, "bob", 2))
        .extracting(ProjectMember::userId)
        .containsExactly("carol", "dave");
    assertThat(store().members(project, "dave", 2)).isEmpty();
    assertThat(store().members(project, null, 10).get(0).permissions())
        .containsExactly(Permission.PACKAGE_READ);
  }

  @Test
  void policyMembersPagesFollowTheirCursorAndRefuseForeignCallers() {
    String project = unique("prj");
    for (String user : List.of("u1", "u2", "u3")) {
      store().replaceMember(new ProjectMember(project, user, Set.of(Permission.PACKAGE_READ)));
    }
    ProjectPolicy policy = new ProjectPolicy(store(), Set.of());
    MemberPage first = policy.members(new Principal("u1"), project, 2, null);
    assertThat(first.items()).extracting(ProjectMember::userId).containsExactly("u1", "u2");
    MemberPage second = policy.members(new Principal("u1"), project, 2, first.nextCursor());
    assertThat(second.items()).extracting(ProjectMember::userId).containsExactly("u3");
    assertThat(second.nextCursor()).isNull();
    assertThatThrownBy(() -> policy.members(new Principal("stranger"), project, 2, null))
        .isInstanceOf(ForbiddenException.class);
    assertThatThrownBy(() -> policy.members(new Principal("u1"), project, 0, null))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> policy.members(new Principal("u1"), project, 2, "bm9wZQ"))
        .isInstanceOf(ValidationException.class);
  }
}
