"""The launch's default weights file is ~/.ros/softbots/... (issue 25.9: /tmp was lost at reboot):
the learner writes it there on a fresh machine, making the folder, and the executor and synthesis
read it back."""

from terresoro_gait.weights import read_csv, read_for_robot, write_csv


def test_a_weights_file_under_home_is_written_into_a_new_folder_and_read_back(
    test_a, tmp_path, monkeypatch
):
    monkeypatch.setenv('HOME', str(tmp_path))
    written = write_csv(test_a, '~/.ros/softbots/robot1/terresoro_iv_weights.csv')
    assert (
        written == tmp_path / '.ros' / 'softbots' / 'robot1' / 'terresoro_iv_weights.csv'
        and written.is_file()
    )
    assert (
        read_csv('~/.ros/softbots/robot1/terresoro_iv_weights.csv').px_mm == test_a.px_mm
    ).all()
    assert read_for_robot('~/.ros/softbots/robot1/terresoro_iv_weights.csv', 2).n_limbs == 2
