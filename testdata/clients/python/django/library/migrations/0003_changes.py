# Written by hand in the form makemigrations writes.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('library', '0002_book_rating'),
    ]

    operations = [
        migrations.RenameField(
            model_name='publisher',
            old_name='country',
            new_name='country_code',
        ),
        migrations.AddField(
            model_name='publisher',
            name='founded',
            field=models.IntegerField(default=1900),
        ),
        migrations.AlterField(
            model_name='book',
            name='title',
            field=models.CharField(max_length=250),
        ),
        migrations.AlterField(
            model_name='book',
            name='pages',
            field=models.PositiveSmallIntegerField(),
        ),
        migrations.AddIndex(
            model_name='book',
            index=models.Index(condition=models.Q(('in_stock', True)), fields=['publisher'], name='book_in_stock'),
        ),
    ]
