package dev.qinglong.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.qinglong.core.kernel.StoreUnavailableException;
import dev.qinglong.core.policy.Permission;
import dev.qinglong.core.policy.ProjectMember;
import dev.qinglong.core.policy.ProjectPolicyStore;
import java.util.EnumSet;
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
    ProjectPolicyStore broken = fixture.policyStore(new UnreachableDataSource());
    assertThatThrownBy(() -> broken.permissionsOf("p", "u"))
        .isInstanceOf(StoreUnavailableException.class);
    assertThatThrownBy(() -> broken.replaceMember(new ProjectMember("p", "u", Set.of())))
        .isInstanceOf(StoreUnavailableException.class);
  }
}
