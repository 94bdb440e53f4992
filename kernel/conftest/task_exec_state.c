// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A task's dumpability lives in its exec state (task->exec_state; seen on
 * 7.2 and 7.3), no longer in its mm's flags (get_dumpable(mm)).
 */
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/exec_state.h>

bool uvm_conftest(struct task_struct *task);
bool uvm_conftest(struct task_struct *task)
{
	return READ_ONCE(rcu_dereference(task->exec_state)->dumpable) == TASK_DUMPABLE_OWNER;
}
